import { describe, expect, it } from 'vitest';
import { devClient, PROJECT } from './client-support.js';
import { tempDataFile } from './data-file.js';

describe('weft dev: v2 versioned objects through the Client', () => {
  it('creates a dataset whose rows are a table the tables API reads', async () => {
    const { client } = await devClient();
    const created = await client.trace.v2.datasets.create({ name: 'qa', rows: [{ q: 'a' }, { q: 'b' }] });
    expect(created).toEqual({ digest: expect.any(String), object_id: 'qa', version_index: 0 });
    const read = await client.trace.v2.datasets.read('qa', created.digest);
    expect(read).toMatchObject({ object_id: 'qa', digest: created.digest, version_index: 0, name: 'qa', description: null });
    const tableDigest = read.rows.split('/').pop()!;
    const { rows } = await client.trace.tables.query({ digest: tableDigest });
    expect(rows.map((r) => r.val)).toEqual([{ q: 'a' }, { q: 'b' }]);
  });

  it('stores an op’s source and reads the code back', async () => {
    const { client } = await devClient();
    const source = 'def add(a, b):\n    return a + b\n';
    const { digest } = await client.trace.v2.ops.create({ name: 'add', source_code: source });
    expect(await client.trace.v2.ops.read('add', digest)).toMatchObject({ object_id: 'add', code: source });
  });

  it('answers a scorer create with its ref and reads back the ref of its scoring op', async () => {
    const { client } = await devClient();
    const created = await client.trace.v2.scorers.create({ name: 'exact', op_source_code: 'def score(o, e): return o == e' });
    expect(created.scorer).toBe(`weave:///${PROJECT}/object/exact:${created.digest}`);
    const read = await client.trace.v2.scorers.read('exact', created.digest);
    expect(read.score_op).toMatch(new RegExp(`^weave:///${PROJECT}/op/exact\\.score:`));
  });

  it('reads back a model’s source and attributes and answers with its ref', async () => {
    const { client } = await devClient();
    const created = await client.trace.v2.models.create({ name: 'bot', source_code: 'class Bot: ...', attributes: { temperature: 0 } });
    expect(created.model_ref).toBe(`weave:///${PROJECT}/object/bot:${created.digest}`);
    expect(await client.trace.v2.models.read('bot', created.digest)).toMatchObject({ name: 'bot', source_code: 'class Bot: ...', attributes: { temperature: 0 } });
  });

  it('stores an evaluation with one trial unless told otherwise', async () => {
    const { client } = await devClient();
    const dataset = 'weave:///team/proj/object/qa:abc';
    const created = await client.trace.v2.evaluations.create({ name: 'eval', dataset, scorers: ['weave:///team/proj/object/exact:d'] });
    expect(created.evaluation_ref).toBe(`weave:///${PROJECT}/object/eval:${created.digest}`);
    expect(await client.trace.v2.evaluations.read('eval', created.digest)).toMatchObject({
      name: 'eval',
      dataset,
      scorers: ['weave:///team/proj/object/exact:d'],
      trials: 1,
    });
  });

  it('makes a new version only for new content and lists the latest version of each object', async () => {
    const { client } = await devClient();
    const first = await client.trace.v2.models.create({ name: 'bot', source_code: 'v1' });
    const again = await client.trace.v2.models.create({ name: 'bot', source_code: 'v1' });
    const second = await client.trace.v2.models.create({ name: 'bot', source_code: 'v2' });
    await client.trace.v2.models.create({ name: 'other', source_code: 'x' });
    expect(again.digest).toBe(first.digest);
    expect(second.version_index).toBe(1);
    const listed = await client.trace.v2.models.list().collect();
    expect(listed.map((m) => [m.object_id, m.source_code])).toEqual([
      ['bot', 'v2'],
      ['other', 'x'],
    ]);
    expect((await client.trace.v2.models.list({ offset: 1, limit: 1 }).collect()).map((m) => m.object_id)).toEqual(['other']);
  });

  it('lists each collection’s own kind only', async () => {
    const { client } = await devClient();
    await client.trace.v2.datasets.create({ name: 'qa', rows: [] });
    await client.trace.v2.models.create({ name: 'bot', source_code: 'x' });
    expect((await client.trace.v2.datasets.list().collect()).map((d) => d.object_id)).toEqual(['qa']);
    expect(await client.trace.v2.scorers.list().collect()).toEqual([]);
  });

  it('reads a version by `latest` as well as by digest', async () => {
    const { client } = await devClient();
    await client.trace.v2.models.create({ name: 'bot', source_code: 'v1' });
    await client.trace.v2.models.create({ name: 'bot', source_code: 'v2' });
    expect((await client.trace.v2.models.read('bot', 'latest')).source_code).toBe('v2');
  });

  it('deletes the named versions, then all of them, and a deleted version reads as 404', async () => {
    const { client } = await devClient();
    const v1 = await client.trace.v2.models.create({ name: 'bot', source_code: 'v1' });
    await client.trace.v2.models.create({ name: 'bot', source_code: 'v2' });
    expect(await client.trace.v2.models.delete('bot', { digests: [v1.digest] })).toEqual({ num_deleted: 1 });
    await expect(client.trace.v2.models.read('bot', v1.digest)).rejects.toMatchObject({ status: 404 });
    expect((await client.trace.v2.models.read('bot', 'latest')).source_code).toBe('v2');
    expect(await client.trace.v2.models.delete('bot')).toEqual({ num_deleted: 1 });
    expect(await client.trace.v2.models.list().collect()).toEqual([]);
  });

  it('answers 404 for an object of another collection, naming what was asked for', async () => {
    const { client } = await devClient();
    const { digest } = await client.trace.v2.models.create({ name: 'bot', source_code: 'x' });
    const error = await client.trace.v2.datasets.read('bot', digest).catch((e) => e);
    expect(error).toMatchObject({ status: 404, message: expect.stringContaining('Dataset bot') });
  });

  it('refuses a scorer without its source with a 422 naming the field', async () => {
    const { client } = await devClient();
    // biome-ignore lint/suspicious/noExplicitAny: the point is a body the types would refuse
    const error = await client.trace.v2.scorers.create({ name: 'x' } as any).catch((e) => e);
    expect(error).toMatchObject({ status: 422, detail: [{ loc: ['body', 'op_source_code'], type: 'missing' }] });
  });

  it('keeps a deletion across a restart with a data file', async () => {
    const dataFile = tempDataFile();
    const first = await devClient({ dataFile });
    const v1 = await first.client.trace.v2.models.create({ name: 'bot', source_code: 'v1' });
    await first.client.trace.v2.models.create({ name: 'bot', source_code: 'v2' });
    await first.client.trace.v2.models.delete('bot', { digests: [v1.digest] });
    await first.dev.close();
    const second = await devClient({ dataFile });
    const listed = await second.client.trace.v2.models.list().collect();
    expect(listed.map((m) => [m.source_code, m.version_index])).toEqual([['v2', 1]]);
  });
});
