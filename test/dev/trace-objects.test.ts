import { describe, expect, it } from 'vitest';
import { WeftNotFoundError } from 'weft';
import { devClient } from './client-support.js';
import { devService, type Json, post } from './support.js';

const P = 'team/proj';

describe('weft dev: objects, tables, feedback and files', () => {
  it('gives the same content the same digest and a new version only for new content', async () => {
    const dev = await devService();
    const create = (val: unknown) => post(dev.url, '/obj/create', { obj: { project_id: P, object_id: 'prompt', val } });
    const first = await create({ text: 'hi', n: 1 });
    const again = await create({ n: 1, text: 'hi' });
    const second = await create({ text: 'bye' });
    expect(again.body.digest).toBe(first.body.digest);
    expect(second.body.digest).not.toBe(first.body.digest);

    const latest = await post(dev.url, '/obj/read', { project_id: P, object_id: 'prompt', digest: 'latest' });
    expect(latest.body.obj).toMatchObject({ digest: second.body.digest, version_index: 1, is_latest: 1, val: { text: 'bye' }, kind: 'object' });
    const old = await post(dev.url, '/obj/read', { project_id: P, object_id: 'prompt', digest: first.body.digest });
    expect(old.body.obj).toMatchObject({ version_index: 0, is_latest: 0, val: { text: 'hi', n: 1 } });
  });

  it('answers 404 for an object version that does not exist', async () => {
    const dev = await devService();
    const res = await post(dev.url, '/obj/read', { project_id: P, object_id: 'nope', digest: 'latest' });
    expect(res.status).toBe(404);
    expect(res.body.reason).toMatch(/nope/);
  });

  it("answers its own errors as the trace service does, {reason}, which weft's client reads as the message", async () => {
    const { client } = await devClient();
    const error = await client.trace.objs.read({ object_id: 'nope', digest: 'latest' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftNotFoundError);
    expect((error as WeftNotFoundError).serverMessage).toMatch(/nope/);
    expect((error as WeftNotFoundError).body).toEqual({ reason: (error as WeftNotFoundError).serverMessage });
  });

  it('queries objects by id, latest only and op kind', async () => {
    const dev = await devService();
    await post(dev.url, '/obj/create', { obj: { project_id: P, object_id: 'a', val: 1 } });
    await post(dev.url, '/obj/create', { obj: { project_id: P, object_id: 'a', val: 2 } });
    await post(dev.url, '/obj/create', {
      obj: { project_id: P, object_id: 'my_op', val: { _type: 'CustomWeaveType', weave_type: { type: 'Op' } } },
    });
    const latestA = await post(dev.url, '/objs/query', { project_id: P, filter: { object_ids: ['a'], latest_only: true } });
    expect(latestA.body.objs.map((o: Json) => o.val)).toEqual([2]);
    const ops = await post(dev.url, '/objs/query', { project_id: P, filter: { is_op: true } });
    expect(ops.body.objs.map((o: Json) => o.object_id)).toEqual(['my_op']);
  });

  it('stores table rows and pages through them', async () => {
    const dev = await devService();
    const rows = [{ q: 'a' }, { q: 'b' }, { q: 'c' }];
    const created = await post(dev.url, '/table/create', { table: { project_id: P, rows } });
    expect(created.body.row_digests).toHaveLength(3);
    const page = await post(dev.url, '/table/query', { project_id: P, digest: created.body.digest, offset: 1, limit: 1 });
    expect(page.body.rows).toEqual([{ digest: created.body.row_digests[1], val: { q: 'b' }, original_index: 1 }]);
  });

  it('creates feedback and queries it with selected fields', async () => {
    const dev = await devService();
    const ref = 'weave:///team/proj/call/c1';
    const created = await post(dev.url, '/feedback/create', {
      project_id: P,
      weave_ref: ref,
      feedback_type: 'wandb.note.1',
      payload: { note: 'good' },
    });
    expect(created.body).toMatchObject({ id: expect.any(String), created_at: expect.any(String), payload: { note: 'good' } });
    const found = await post(dev.url, '/feedback/query', {
      project_id: P,
      fields: ['id', 'payload.note'],
      query: { $expr: { $eq: [{ $getField: 'weave_ref' }, { $literal: ref }] } },
    });
    expect(found.body.result).toEqual([{ id: created.body.id, 'payload.note': 'good' }]);
  });

  it('stores an uploaded file and returns its bytes by digest', async () => {
    const dev = await devService();
    const form = new FormData();
    form.set('project_id', P);
    form.set('file', new Blob([Buffer.from([0, 1, 2, 250])]), 'data.bin');
    const res = await fetch(`${dev.url}/file/create`, { method: 'POST', body: form });
    const { digest } = (await res.json()) as { digest: string };
    const content = await fetch(`${dev.url}/file/content`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: P, digest }),
    });
    expect(content.headers.get('content-type')).toBe('application/octet-stream');
    expect([...new Uint8Array(await content.arrayBuffer())]).toEqual([0, 1, 2, 250]);
  });

  it('answers 422 for a file upload without the file part', async () => {
    const dev = await devService();
    const form = new FormData();
    form.set('project_id', P);
    const res = await fetch(`${dev.url}/file/create`, { method: 'POST', body: form });
    expect(res.status).toBe(422);
    expect(((await res.json()) as Json).detail[0].loc).toEqual(['body', 'file']);
  });
});
