import { describe, expect, it } from 'vitest';
import { devService, endBody, post, startBody, streamQuery } from './support.js';

describe('weft dev: calls written through the JSON API', () => {
  it('returns a started and ended call from /call/read with computed status and latency', async () => {
    const dev = await devService();
    const started = await post(dev.url, '/call/start', startBody());
    expect(started.status).toBe(200);
    expect(started.body).toEqual({ id: expect.any(String), trace_id: expect.any(String) });
    expect((await post(dev.url, '/call/end', endBody(started.body.id))).body).toEqual({});

    const read = await post(dev.url, '/call/read', { project_id: 'team/proj', id: started.body.id });
    expect(read.body.call).toMatchObject({
      id: started.body.id,
      trace_id: started.body.trace_id,
      op_name: 'predict',
      inputs: { question: 'hi' },
      output: 'hello',
      parent_id: null,
      ended_at: '2026-01-01T00:00:01.500000Z',
      summary: { weave: { status: 'success', latency_ms: 1500, trace_name: 'predict' } },
    });
  });

  it('answers null from /call/read for an unknown call', async () => {
    const dev = await devService();
    const read = await post(dev.url, '/call/read', { project_id: 'team/proj', id: 'nope' });
    expect(read).toMatchObject({ status: 200, body: { call: null } });
  });

  it('writes starts and ends from one /call/upsert_batch, in any order', async () => {
    const dev = await devService();
    const batch = await post(dev.url, '/call/upsert_batch', {
      batch: [
        { mode: 'end', req: endBody('c1', { exception: 'boom' }) },
        { mode: 'start', req: startBody({ id: 'c1', trace_id: 't1' }) },
      ],
    });
    expect(batch.body).toEqual({ res: [{}, { id: 'c1', trace_id: 't1' }] });
    const read = await post(dev.url, '/call/read', { project_id: 'team/proj', id: 'c1' });
    expect(read.body.call).toMatchObject({ exception: 'boom', summary: { weave: { status: 'error' } } });
  });

  it('rejects a whole batch with a 422 naming the bad item, writing none of it', async () => {
    const dev = await devService();
    const batch = await post(dev.url, '/call/upsert_batch', {
      batch: [
        { mode: 'start', req: startBody({ id: 'ok' }) },
        { mode: 'start', req: { start: { project_id: 'team/proj' } } },
      ],
    });
    expect(batch.status).toBe(422);
    expect(batch.body.detail).toContainEqual({ loc: ['body', 'batch', 1, 'req', 'start', 'op_name'], msg: 'Field required', type: 'missing' });
    expect((await post(dev.url, '/call/read', { project_id: 'team/proj', id: 'ok' })).body.call).toBeNull();
  });

  it('refuses unknown fields in a call start, as the strict real service does', async () => {
    const dev = await devService();
    const res = await post(dev.url, '/call/start', startBody({ colour: 'red' }));
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['body', 'start', 'colour'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }]);
  });

  it('filters /calls/stream_query by trace, parent, op name, thread and trace roots', async () => {
    const dev = await devService();
    const write = (fields: Record<string, unknown>) => post(dev.url, '/call/start', startBody(fields));
    await write({ id: 'root', trace_id: 'T', op_name: 'agent', thread_id: 'th', started_at: '2026-01-01T00:00:00Z' });
    await write({ id: 'child1', trace_id: 'T', parent_id: 'root', op_name: 'llm', started_at: '2026-01-01T00:00:02Z' });
    await write({ id: 'child2', trace_id: 'T', parent_id: 'root', op_name: 'tool', started_at: '2026-01-01T00:00:01Z' });
    await write({ id: 'other', trace_id: 'U', op_name: 'agent', started_at: '2026-01-01T00:00:03Z' });
    const ids = async (filter: Record<string, unknown>) =>
      (await streamQuery(dev.url, { project_id: 'team/proj', filter })).map((c) => c.id);

    expect(await ids({ trace_ids: ['T'] })).toEqual(['root', 'child2', 'child1']);
    expect(await ids({ parent_ids: ['root'] })).toEqual(['child2', 'child1']);
    expect(await ids({ op_names: ['agent'] })).toEqual(['root', 'other']);
    expect(await ids({ thread_ids: ['th'] })).toEqual(['root']);
    expect(await ids({ trace_roots_only: true })).toEqual(['root', 'other']);
    expect(await ids({ call_ids: ['child1', 'other'] })).toEqual(['child1', 'other']);
  });

  it('sorts, offsets and limits /calls/stream_query and counts with /calls/query_stats', async () => {
    const dev = await devService();
    for (let i = 0; i < 5; i++) {
      await post(dev.url, '/call/start', startBody({ id: `c${i}`, started_at: `2026-01-01T00:00:0${i}Z` }));
    }
    const page = await streamQuery(dev.url, {
      project_id: 'team/proj',
      sort_by: [{ field: 'started_at', direction: 'desc' }],
      offset: 1,
      limit: 2,
    });
    expect(page.map((c) => c.id)).toEqual(['c3', 'c2']);
    const stats = await post(dev.url, '/calls/query_stats', { project_id: 'team/proj', filter: { call_ids: ['c1', 'c2'] } });
    expect(stats.body).toEqual({ count: 2 });
  });

  it('applies a $expr query to /calls/stream_query', async () => {
    const dev = await devService();
    await post(dev.url, '/call/start', startBody({ id: 'a', inputs: { n: 1 } }));
    await post(dev.url, '/call/start', startBody({ id: 'b', inputs: { n: 5 } }));
    const calls = await streamQuery(dev.url, {
      project_id: 'team/proj',
      query: { $expr: { $gt: [{ $getField: 'inputs.n' }, { $literal: 2 }] } },
    });
    expect(calls.map((c) => c.id)).toEqual(['b']);
  });

  it('stores call times in UTC with microseconds, whatever zone and precision they were sent with', async () => {
    const dev = await devService();
    await post(dev.url, '/call/start', startBody({ id: 'c', started_at: '2026-01-01T01:00:00.25+01:00' }));
    await post(dev.url, '/call/end', endBody('c', { ended_at: '2026-01-01T00:00:01.123456789+00:00' }));
    const read = await post(dev.url, '/call/read', { project_id: 'team/proj', id: 'c' });
    expect(read.body.call).toMatchObject({ started_at: '2026-01-01T00:00:00.250000Z', ended_at: '2026-01-01T00:00:01.123456Z' });
  });

  it('compares times in a $expr query as instants, not as text', async () => {
    const dev = await devService();
    // The same day's first hour from a JavaScript client, a Python one (isoformat) and one an hour east of UTC.
    await post(dev.url, '/call/start', startBody({ id: 'js', started_at: '2026-01-01T00:00:00.500Z' }));
    await post(dev.url, '/call/start', startBody({ id: 'python', started_at: '2026-01-01T00:30:00+00:00' }));
    await post(dev.url, '/call/start', startBody({ id: 'east', started_at: '2026-01-01T01:00:00+01:00' }));
    const matching = async (op: '$gt' | '$gte' | '$eq', time: string) =>
      (await streamQuery(dev.url, { project_id: 'team/proj', query: { $expr: { [op]: [{ $getField: 'started_at' }, { $literal: time }] } } })).map(
        (c) => c.id,
      );
    expect(await matching('$gt', '2026-01-01T00:00:00Z')).toEqual(['js', 'python']);
    expect(await matching('$gt', '2026-01-01T00:15:00.000Z')).toEqual(['python']);
    expect(await matching('$gte', '2026-01-01T01:30:00+01:00')).toEqual(['python']);
    expect(await matching('$eq', '2026-01-01T00:00:00Z')).toEqual(['east']);
  });

  it('keeps projects apart', async () => {
    const dev = await devService();
    await post(dev.url, '/call/start', startBody({ id: 'mine' }));
    expect(await streamQuery(dev.url, { project_id: 'someone/else' })).toEqual([]);
  });

  it('rejects a sort direction other than asc or desc with a 422', async () => {
    const dev = await devService();
    const res = await post(dev.url, '/calls/stream_query', { project_id: 'team/proj', sort_by: [{ field: 'started_at', direction: 'up' }] });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'sort_by', 0, 'direction']);
  });

  it('rejects a negative limit with a 422 naming it', async () => {
    const dev = await devService();
    const res = await post(dev.url, '/calls/stream_query', { project_id: 'team/proj', limit: -1 });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'limit']);
  });

  it('orders calls that started in the same millisecond by when they ended', async () => {
    const dev = await devService();
    for (const [id, end] of [['later', '2026-01-01T00:00:00.900Z'], ['sooner', '2026-01-01T00:00:00.100Z']]) {
      await post(dev.url, '/call/start', startBody({ id, started_at: '2026-01-01T00:00:00.000Z' }));
      await post(dev.url, '/call/end', endBody(id!, { ended_at: end }));
    }
    expect((await streamQuery(dev.url, { project_id: 'team/proj' })).map((c) => c.id)).toEqual(['sooner', 'later']);
  });
});
