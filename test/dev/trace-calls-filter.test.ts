import { describe, expect, it } from 'vitest';
import { devClient } from './client-support.js';
import { devService, endBody, post, startBody, streamQuery } from './support.js';

describe('weft dev: CallsFilter as the service reads it', () => {
  it('treats an empty id list as no filter, but an empty thread_ids or turn_ids as matching none', async () => {
    const dev = await devService();
    await post(dev.url, '/call/start', startBody({ id: 'a', trace_id: 'T', thread_id: 'th', started_at: '2026-01-01T00:00:00Z' }));
    await post(dev.url, '/call/start', startBody({ id: 'b', trace_id: 'U', parent_id: 'a', started_at: '2026-01-01T00:00:01Z' }));
    const ids = async (filter: Record<string, unknown>) =>
      (await streamQuery(dev.url, { project_id: 'team/proj', filter })).map((c) => c.id);

    // The service adds a condition only for a non-empty list (`if filter.call_ids:`), so an app that passes
    // the ids it happens to have gets every call when it has none.
    for (const key of ['call_ids', 'trace_ids', 'parent_ids', 'op_names', 'input_refs', 'output_refs', 'wb_user_ids', 'wb_run_ids']) {
      expect(await ids({ [key]: [] }), key).toEqual(['a', 'b']);
    }
    // thread_ids and turn_ids are tested against None: an empty list is `IN ()`, which nothing passes.
    expect(await ids({ thread_ids: [] })).toEqual([]);
    expect(await ids({ turn_ids: [] })).toEqual([]);
    const stats = await post(dev.url, '/calls/query_stats', { project_id: 'team/proj', filter: { call_ids: [] } });
    expect(stats.body).toEqual({ count: 2 });
  });
});

describe('weft dev: the query language as the service parses it', () => {
  it('takes $lt and $lte, as the service does', async () => {
    const dev = await devService();
    for (const [id, n] of [['a', 1], ['b', 2], ['c', 3]] as const) {
      await post(dev.url, '/call/start', startBody({ id, inputs: { n }, started_at: `2026-01-01T00:00:0${n}Z` }));
    }
    const ids = async (op: string) =>
      (await streamQuery(dev.url, { project_id: 'team/proj', query: { $expr: { [op]: [{ $getField: 'inputs.n' }, { $literal: 2 }] } } })).map(
        (c) => c.id,
      );
    expect(await ids('$lt')).toEqual(['a']);
    expect(await ids('$lte')).toEqual(['a', 'b']);
  });

  it("takes them from weft's client too, whose Query type names them", async () => {
    const { client } = await devClient();
    for (const n of [1, 2, 3]) {
      await client.trace.calls.start({ start: { id: `c${n}`, trace_id: `t${n}`, op_name: 'op', started_at: `2026-01-01T00:00:0${n}Z`, attributes: {}, inputs: { n } } });
    }
    const found: string[] = [];
    for await (const call of client.trace.calls.streamQuery({ query: { $expr: { $lte: [{ $getField: 'inputs.n' }, { $literal: 2 }] } } })) found.push(call.id);
    expect(found).toEqual(['c1', 'c2']);
  });
});

describe('weft dev: the order of /calls/stream_query, as the service sorts', () => {
  it('puts calls without a value last in either direction, and sorts JSON paths by number before text', async () => {
    const dev = await devService();
    const calls: [string, Record<string, unknown>, string | null][] = [
      ['nine', { x: 9 }, '2026-01-01T00:00:09Z'],
      ['ten', { x: '10' }, null],
      ['word', { x: 'abc' }, '2026-01-01T00:00:05Z'],
      ['none', {}, '2026-01-01T00:00:07Z'],
      ['nil', { x: null }, null],
    ];
    for (const [i, [id, inputs, ended]] of calls.entries()) {
      await post(dev.url, '/call/start', startBody({ id, inputs, started_at: `2026-01-01T00:00:0${i}Z` }));
      if (ended) await post(dev.url, '/call/end', endBody(id, { ended_at: ended }));
    }
    const order = async (field: string, direction: 'asc' | 'desc') =>
      (await streamQuery(dev.url, { project_id: 'team/proj', sort_by: [{ field, direction }] })).map((c) => c.id);

    // ClickHouse orders NULLS LAST: running calls have no ended_at and no latency, whatever the direction.
    expect(await order('ended_at', 'asc')).toEqual(['word', 'none', 'nine', 'ten', 'nil']);
    expect(await order('ended_at', 'desc')).toEqual(['nine', 'none', 'word', 'ten', 'nil']);
    expect((await order('summary.weave.latency_ms', 'asc')).slice(-2)).toEqual(['ten', 'nil']);
    // A JSON path: existing values first, numbers (a numeric string too) by value, then text.
    expect(await order('inputs.x', 'asc')).toEqual(['nine', 'ten', 'word', 'none', 'nil']);
    expect(await order('inputs.x', 'desc')).toEqual(['ten', 'nine', 'word', 'none', 'nil']);
  });
});

describe('weft dev: comparisons on a call’s JSON, as the service reads it', () => {
  it('reads a JSON field as text, cast to match a number or bool literal, and a number against text matches nothing', async () => {
    const dev = await devService();
    const calls: [string, Record<string, unknown>][] = [
      ['num', { x: 5, flag: true, obj: { a: 1 } }],
      ['text', { x: '5', flag: 'true' }],
      ['word', { x: 'five' }],
      ['none', {}],
    ];
    for (const [i, [id, inputs]] of calls.entries()) await post(dev.url, '/call/start', startBody({ id, inputs, started_at: `2026-01-01T00:00:0${i}Z` }));
    const ids = async (expr: Record<string, unknown>) => (await streamQuery(dev.url, { project_id: 'team/proj', query: { $expr: expr } })).map((c) => c.id);
    const x = { $getField: 'inputs.x' };

    // JSON_VALUE gives the text '5' for both 5 and "5": a string literal matches both, and so does the number,
    // the field being cast to an integer to meet it.
    expect(await ids({ $eq: [x, { $literal: '5' }] })).toEqual(['num', 'text']);
    expect(await ids({ $eq: [x, { $literal: 5 }] })).toEqual(['num', 'text']);
    expect(await ids({ $in: [x, [{ $literal: 5 }, { $literal: 6 }]] })).toEqual(['num', 'text']);
    expect(await ids({ $eq: [{ $getField: 'inputs.flag' }, { $literal: true }] })).toEqual(['num', 'text']);
    // A missing field reads as '', never as null, and a number comparison on a field that is no number is
    // unknown: its $not is unknown too, so neither side of it holds the call.
    expect(await ids({ $eq: [x, { $literal: '' }] })).toEqual(['none']);
    expect(await ids({ $eq: [x, { $literal: null }] })).toEqual([]);
    expect(await ids({ $gt: [x, { $literal: 1 }] })).toEqual(['num', 'text']);
    expect(await ids({ $not: [{ $gt: [x, { $literal: 1 }] }] })).toEqual([]);
    // An object reads as its minified JSON.
    expect(await ids({ $contains: { input: { $getField: 'inputs.obj' }, substr: { $literal: '{"a":1}' } } })).toEqual(['num']);
    expect(await ids({ $eq: [{ $convert: { input: x, to: 'exists' } }, { $literal: true }] })).toEqual(['num', 'text', 'word']);
  });
});

describe('weft dev: the summary fields the service computes', () => {
  it('computes status and latency whatever the writer stored, with descendant_error, and names a trace after its op ref', async () => {
    const dev = await devService();
    const op = 'weave:///team/proj/op/predict:abc123';
    await post(dev.url, '/call/start', startBody({ id: 'a', op_name: op, started_at: '2026-01-01T00:00:00.000900Z' }));
    await post(
      dev.url,
      '/call/end',
      endBody('a', { ended_at: '2026-01-01T00:00:01.000100Z', summary: { status_counts: { error: 1 }, weave: { status: 'success', latency_ms: 5 } } }),
    );
    await post(dev.url, '/call/start', startBody({ id: 'b', started_at: '2026-01-01T00:00:02Z' }));
    await post(dev.url, '/call/end', endBody('b', { ended_at: '2026-01-01T00:00:03Z', exception: 'boom', summary: { weave: { status: 'success' } } }));
    const [a, b] = await streamQuery(dev.url, { project_id: 'team/proj' });
    // 0.9992 s: the service drops the difference's microseconds.
    expect(a.summary.weave).toMatchObject({ status: 'descendant_error', latency_ms: 999, trace_name: 'predict' });
    expect(b.summary.weave).toMatchObject({ status: 'error', latency_ms: 1000 });
  });
});

describe('weft dev: the fields of each call a query answers', () => {
  it('keeps every CallSchema key when columns are asked for, the unasked ones null, and the required ones always', async () => {
    const dev = await devService();
    await post(dev.url, '/call/start', startBody({ id: 'a', inputs: { q: 'hi' }, attributes: { env: 'dev' }, display_name: 'first' }));
    await post(dev.url, '/call/end', endBody('a', { output: 'yo' }));
    const [call] = await streamQuery(dev.url, { project_id: 'team/proj', columns: ['output'] });
    expect(call).toMatchObject({ id: 'a', project_id: 'team/proj', op_name: expect.any(String), trace_id: expect.any(String), output: 'yo' });
    expect(call).toMatchObject({ inputs: {}, attributes: {}, display_name: null, ended_at: null, parent_id: null, storage_size_bytes: null });
    expect(Object.keys(call.summary)).toEqual(['weave']);
    // Asking for the summary reads what its status and name come from: the end, the exception, the display name.
    const [withSummary] = await streamQuery(dev.url, { project_id: 'team/proj', columns: ['summary.weave.status'] });
    expect(withSummary).toMatchObject({ display_name: 'first', ended_at: expect.any(String), exception: null, inputs: {} });
  });

  it('answers storage sizes only when asked, the trace total on the root', async () => {
    const dev = await devService();
    await post(dev.url, '/call/start', startBody({ id: 'root', trace_id: 'T', inputs: { q: 'hi' } }));
    await post(dev.url, '/call/start', startBody({ id: 'kid', trace_id: 'T', parent_id: 'root', inputs: { q: 'there' } }));
    const [plain] = await streamQuery(dev.url, { project_id: 'team/proj' });
    expect(plain).toMatchObject({ storage_size_bytes: null, total_storage_size_bytes: null });
    const [root, kid] = await streamQuery(dev.url, { project_id: 'team/proj', include_storage_size: true, include_total_storage_size: true });
    expect(root.storage_size_bytes).toBeGreaterThan(0);
    expect(root.total_storage_size_bytes).toBe(root.storage_size_bytes + kid.storage_size_bytes);
    expect(kid.total_storage_size_bytes).toBeNull();
    const read = await post(dev.url, '/call/read', { project_id: 'team/proj', id: 'kid', include_storage_size: true });
    expect(read.body.call.storage_size_bytes).toBe(kid.storage_size_bytes);
    const stats = await post(dev.url, '/calls/query_stats', { project_id: 'team/proj', include_total_storage_size: true });
    expect(stats.body).toEqual({ count: 2, total_storage_size_bytes: root.total_storage_size_bytes });
  });
});

describe('weft dev: queries the service refuses', () => {
  it('refuses an empty $and or $or with a 400, and an $expr that is no operation with a 422', async () => {
    const dev = await devService();
    const ask = (expr: unknown) => post(dev.url, '/calls/stream_query', { project_id: 'team/proj', query: { $expr: expr } });
    expect(await ask({ $and: [] })).toMatchObject({ status: 400, body: { reason: 'Empty AND operation' } });
    expect(await ask({ $or: [] })).toMatchObject({ status: 400, body: { reason: 'Empty OR operation' } });
    expect((await ask({ $literal: true })).status).toBe(422);
  });
});
