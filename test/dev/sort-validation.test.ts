import { describe, expect, it } from 'vitest';
import { devService, get, post } from './support.js';

// Every route that takes `sort_by` reads it as the service's `SortBy` (reference §2.2): strict, with a direction of
// asc or desc. Each is asked with the least body it takes, so a 422 can only come from the sort.
const SORTING_ROUTES: [path: string, body: Record<string, unknown>][] = [
  ['/calls/stream_query', {}],
  ['/objs/query', {}],
  ['/table/query', { digest: 'any' }],
  ['/table/query_stream', { digest: 'any' }],
  ['/feedback/query', {}],
  ['/cost/query', {}],
  ['/threads/stream_query', {}],
  ['/annotation_queues/query', {}],
  ['/annotation_queues/any-queue/items/query', {}],
];

describe('weft dev: sort_by on every route that sorts', () => {
  it.each(SORTING_ROUTES)('%s refuses a direction other than asc or desc with a 422 at the direction', async (path, body) => {
    const dev = await devService();
    const res = await post(dev.url, path, { project_id: 'team/proj', ...body, sort_by: [{ field: 'created_at', direction: 'up' }] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'sort_by', 0, 'direction'], msg: "Input should be 'asc' or 'desc'", type: 'literal_error' },
    ]);
  });

  it.each(SORTING_ROUTES)('%s refuses a sort_by item with a key besides field and direction', async (path, body) => {
    const dev = await devService();
    const res = await post(dev.url, path, { project_id: 'team/proj', ...body, sort_by: [{ field: 'created_at', direction: 'asc', nulls: 'last' }] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['body', 'sort_by', 0, 'nulls'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }]);
  });

  it('sorts /objs/query descending when asked, as it did', async () => {
    const dev = await devService();
    for (const id of ['a', 'b']) await post(dev.url, '/obj/create', { obj: { project_id: 'team/proj', object_id: id, val: { id } } });
    const res = await post(dev.url, '/objs/query', { project_id: 'team/proj', sort_by: [{ field: 'object_id', direction: 'desc' }] });
    expect(res.status).toBe(200);
    expect(res.body.objs.map((o: { object_id: string }) => o.object_id)).toEqual(['b', 'a']);
  });
});

describe('weft dev: other fixed sets of values', () => {
  it('refuses an upsert_batch item whose mode is neither start nor end, as a literal_error', async () => {
    const dev = await devService();
    const res = await post(dev.url, '/call/upsert_batch', { batch: [{ mode: 'middle', req: {} }] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['body', 'batch', 0, 'mode'], msg: "Input should be 'start' or 'end'", type: 'literal_error' }]);
  });

  it('refuses a checkpoint order other than asc or desc, as an enum error', async () => {
    const dev = await devService();
    const model = await post(dev.v1Url, '/preview/models', { project: 'proj', name: 'agent', base_model: 'OpenPipe/Qwen3-14B-Instruct' });
    const res = await get(dev.v1Url, `/preview/models/${model.body.id}/checkpoints?order=up`);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['query', 'order'], msg: "Input should be 'asc' or 'desc'", type: 'enum' }]);
  });

  it('words a refused value of more than two as pydantic does, the last after "or"', async () => {
    const dev = await devService();
    const res = await post(dev.url, '/calls/stats', { project_id: 'team/proj', start: '2026-01-01T00:00:00Z', call_metrics: [{ metric: 'vibes' }] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'call_metrics', 0, 'metric'], msg: "Input should be 'latency_ms', 'call_count' or 'error_count'", type: 'enum' },
    ]);
  });
});
