import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDevService } from 'weft/dev';
import { dataLines, tempDataFile } from './data-file.js';
import { devService, endBody, post, startBody, streamQuery } from './support.js';

const feedback = (type: string) => ({ project_id: 'team/proj', weave_ref: 'weave:///team/proj/call/c1', feedback_type: type, payload: {} });

describe('weft dev: storage', () => {
  it('keeps calls, objects and feedback across a restart with --data', async () => {
    const file = tempDataFile();
    const first = await startDevService({ port: 0, dataFile: file, log: false });
    await post(first.url, '/call/start', startBody({ id: 'c1', trace_id: 't1' }));
    await post(first.url, '/call/end', endBody('c1'));
    const obj = await post(first.url, '/obj/create', { obj: { project_id: 'team/proj', object_id: 'o', val: { a: 1 } } });
    await post(first.url, '/feedback/create', { project_id: 'team/proj', weave_ref: 'weave:///team/proj/call/c1', feedback_type: 'note', payload: { x: 1 } });
    await first.close();

    const second = await devService({ dataFile: file });
    const [call] = await streamQuery(second.url, { project_id: 'team/proj' });
    expect(call).toMatchObject({ id: 'c1', output: 'hello', summary: { weave: { status: 'success' } } });
    const read = await post(second.url, '/obj/read', { project_id: 'team/proj', object_id: 'o', digest: obj.body.digest });
    expect(read.body.obj.val).toEqual({ a: 1 });
    expect((await post(second.url, '/feedback/query', { project_id: 'team/proj' })).body.result).toHaveLength(1);
  });

  it('skips a torn last line and keeps appending after the last whole record', async () => {
    const file = tempDataFile();
    const first = await startDevService({ port: 0, dataFile: file, log: false });
    await post(first.url, '/call/start', startBody({ id: 'whole' }));
    await first.close();
    appendFileSync(file, '{"kind":"call_start","start":{"project_id":"team/pr');

    const lines: string[] = [];
    const second = await devService({ dataFile: file, log: (line) => lines.push(line) });
    expect(lines.join('\n')).toMatch(/skipped 1 unreadable line/);
    await post(second.url, '/call/start', startBody({ id: 'after' }));
    await second.close();

    const third = await devService({ dataFile: file });
    expect((await streamQuery(third.url, { project_id: 'team/proj' })).map((c) => c.id)).toEqual(['whole', 'after']);
  });

  it('refuses to start on a data file it did not write, and leaves the file as it was', async () => {
    const foreign = ['{\n  "name": "an-app",\n  "lockfileVersion": 3\n}\n', '{"a":1}\n{"b":2}\n{"c":3}', 'binary\n\u0000tail', '{"name":"minified"}', '\u0000binary'];
    for (const text of foreign) {
      const file = tempDataFile();
      writeFileSync(file, text);
      await expect(startDevService({ port: 0, dataFile: file, log: false })).rejects.toThrow(/holds no record of weft dev's .*not starting, so as not to overwrite it/);
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
  });

  it('refuses a data file another weft dev of this process holds, until that one closes', async () => {
    const file = tempDataFile();
    const first = await devService({ dataFile: file });
    await expect(startDevService({ port: 0, dataFile: file, log: false })).rejects.toThrow(/is in use by another weft dev of this process/);
    await first.close();
    const second = await devService({ dataFile: file });
    expect((await post(second.url, '/call/start', startBody({ id: 'after' }))).status).toBe(200);
  });

  it('starts on its own file that a crash left with only a torn first record, cutting that off', async () => {
    const file = tempDataFile();
    writeFileSync(file, '{"kind":"call_start","start":{"project_id":"team/pr');
    const dev = await devService({ dataFile: file });
    expect((await post(dev.url, '/call/start', startBody({ id: 'first' }))).status).toBe(200);
    await dev.close();
    expect(dataLines(file).map((line) => (JSON.parse(line) as { kind: string }).kind)).toEqual(['call_start']);
  });

  it('refuses a call nested deeper than the service parses (400), and its listing keeps answering', async () => {
    const dev = await devService();
    // Written as text: the test's own JSON.stringify would overflow its stack first.
    const depth = 5_000;
    const inputs = `${'{"deep":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const start = `{"start":{"project_id":"team/proj","id":"deep","op_name":"predict","started_at":"2026-01-01T00:00:00.000Z","attributes":{},"inputs":${inputs}}}`;
    const started = await fetch(`${dev.url}/call/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: start });
    // Stored, it ran weft dev's recursive walks out of stack: every listing of the project answered 500.
    expect(started.status).toBe(400);
    expect(await started.json()).toEqual({ reason: expect.stringMatching(/^There was an error parsing the body/) });
    const res = await fetch(`${dev.url}/calls/stream_query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: 'team/proj' }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  it('fails a write the full disk refuses, keeps no trace of it, and loses none answered 200', async (context) => {
    // A disk of 64 KiB, where a mount is allowed (root, as on this project's CI machine).
    const dir = mkdtempSync(join(tmpdir(), 'weft-tiny-'));
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]).status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      context.skip('no tmpfs can be mounted here');
    }
    try {
      const file = join(dir, 'data.jsonl');
      const filler = join(dir, 'filler');
      writeFileSync(filler, Buffer.alloc(16 * 1024));
      const dev = await devService({ dataFile: file });
      const answered: string[] = [];
      let refused: number | undefined;
      for (let i = 0; i < 100 && refused === undefined; i++) {
        const res = await post(dev.url, '/call/start', startBody({ id: `c${i}`, inputs: { text: 'x'.repeat(2000) } }));
        if (res.status === 200) answered.push(`c${i}`);
        else refused = res.status;
      }
      expect(refused).toBe(500);
      // What was refused is not served either: the data is what a restart will find.
      expect((await streamQuery(dev.url, { project_id: 'team/proj' })).map((c) => c.id)).toEqual(answered);
      unlinkSync(filler);
      expect((await post(dev.url, '/call/start', startBody({ id: 'after' }))).status).toBe(200);
      await dev.close();

      const lines: string[] = [];
      const again = await devService({ dataFile: file, log: (line) => lines.push(line) });
      expect((await streamQuery(again.url, { project_id: 'team/proj' })).map((c) => c.id)).toEqual([...answered, 'after']);
      expect(lines.join('\n')).not.toMatch(/unreadable/);
      await again.close();
    } finally {
      // Lazily: a service still open on the file (a failed assertion) would make a plain umount refuse.
      spawnSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('evicts the oldest traces past maxTraces and says so', async () => {
    const lines: string[] = [];
    const dev = await devService({ maxTraces: 2, log: (line) => lines.push(line) });
    for (const t of ['t1', 't2', 't3']) await post(dev.url, '/call/start', startBody({ id: `${t}-root`, trace_id: t }));
    await post(dev.url, '/call/start', startBody({ id: 't3-child', trace_id: 't3', parent_id: 't3-root' }));
    const ids = (await streamQuery(dev.url, { project_id: 'team/proj' })).map((c) => c.id);
    expect(ids).toEqual(['t2-root', 't3-root', 't3-child']);
    // The line comes once the writes have paused, while the service runs.
    const deadline = Date.now() + 10_000;
    while (!lines.some((line) => line.startsWith('evicted'))) {
      if (Date.now() > deadline) throw new Error('no eviction notice within 10 s of the last write');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(lines.filter((line) => line.startsWith('evicted'))).toEqual([
      'evicted 1 oldest trace(s) to keep at most 2 (1 evicted in total; raise --max-traces to keep more)',
    ]);
  });

  it('reports a burst of evictions from concurrent writes in one line with the total', async () => {
    const lines: string[] = [];
    const dev = await devService({ maxTraces: 10, log: (line) => lines.push(line) });
    const writes = Array.from({ length: 100 }, (_, i) => post(dev.url, '/call/start', startBody({ id: `c${i}`, trace_id: `t${i}` })));
    expect((await Promise.all(writes)).every((res) => res.status === 200)).toBe(true);
    // Closing reports what is still gathered, so the test need not wait out the notice interval.
    await dev.close();
    expect(lines.filter((line) => line.startsWith('evicted'))).toEqual([
      'evicted 90 oldest trace(s) to keep at most 10 (90 evicted in total; raise --max-traces to keep more)',
    ]);
  });

  it('applies the trace bound on replay and compacts the data file', async () => {
    const file = tempDataFile();
    const first = await startDevService({ port: 0, dataFile: file, log: false });
    for (const t of ['t1', 't2', 't3']) await post(first.url, '/call/start', startBody({ id: t, trace_id: t }));
    await first.close();

    const lines: string[] = [];
    const second = await devService({ dataFile: file, maxTraces: 1, log: (line) => lines.push(line) });
    expect((await streamQuery(second.url, { project_id: 'team/proj' })).map((c) => c.id)).toEqual(['t3']);
    expect(lines.join('\n')).toMatch(/evicted 2 oldest trace\(s\) on replay/);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('compacts the data file while running so that evicted traces do not pile up on disk', async () => {
    const file = tempDataFile();
    const first = await startDevService({ port: 0, dataFile: file, maxTraces: 2, log: false });
    for (let i = 0; i < 9; i++) await post(first.url, '/call/start', startBody({ id: `c${i}`, trace_id: `t${i}` }));
    await first.close();
    expect(readFileSync(file, 'utf8').trim().split('\n').length).toBeLessThanOrEqual(4);

    const second = await devService({ dataFile: file, maxTraces: 2 });
    expect((await streamQuery(second.url, { project_id: 'team/proj' })).map((c) => c.id)).toEqual(['c7', 'c8']);
  });

  it('compacts the data file once deleted records pile up, keeping what is live', async () => {
    const file = tempDataFile();
    const first = await startDevService({ port: 0, dataFile: file, log: false });
    const batch = Array.from({ length: 3000 }, (_, i) => ({ ...feedback(i === 0 ? 'keep' : 'x') }));
    const created = await post(first.url, '/feedback/batch/create', { batch });
    expect(created.status).toBe(200);
    // The service purges feedback by id only: every `x`, named one by one.
    const ids: string[] = created.body.res.slice(1).map((r: { id: string }) => r.id);
    const query = { $expr: { $or: ids.map((id) => ({ $eq: [{ $getField: 'id' }, { $literal: id }] })) } };
    expect((await post(first.url, '/feedback/purge', { project_id: 'team/proj', query })).status).toBe(200);
    await first.close();
    expect(dataLines(file)).toHaveLength(1);

    const second = await devService({ dataFile: file });
    const { body } = await post(second.url, '/feedback/query', { project_id: 'team/proj', fields: ['feedback_type'] });
    expect(body.result).toEqual([{ feedback_type: 'keep' }]);
  });

  it('compacts the data file once replaced records pile up', async () => {
    const file = tempDataFile();
    const dev = await devService({ dataFile: file });
    let id = (await post(dev.url, '/feedback/create', feedback('v0'))).body.id;
    for (let i = 1; i <= 600; i++) id = (await post(dev.url, '/feedback/replace', { ...feedback(`v${i}`), feedback_id: id })).body.id;
    // Without compaction the file would hold 1201 lines: every version and every delete.
    expect(dataLines(file).length).toBeLessThan(400);
    const { body } = await post(dev.url, '/feedback/query', { project_id: 'team/proj', fields: ['feedback_type'] });
    expect(body.result).toEqual([{ feedback_type: 'v600' }]);
  });

  it('compacts on start a data file mostly made of deleted records', async () => {
    const file = tempDataFile();
    const records = Array.from({ length: 3000 }, (_, i) => ({ kind: 'feedback', feedback: { ...feedback('x'), id: `f${i}`, created_at: '2026-01-01T00:00:00Z' } }));
    const purge = { kind: 'feedback_delete', project_id: 'team/proj', ids: records.slice(1).map((r) => r.feedback.id) };
    writeFileSync(file, [...records, purge].map((r) => `${JSON.stringify(r)}\n`).join(''));

    const lines: string[] = [];
    const dev = await devService({ dataFile: file, log: (line) => lines.push(line) });
    expect(lines.join('\n')).toMatch(/compacting/);
    expect(dataLines(file).map((l) => JSON.parse(l).feedback?.id)).toEqual(['f0']);
    expect((await post(dev.url, '/feedback/query', { project_id: 'team/proj' })).body.result).toHaveLength(1);
  });
});
