import { describe, expect, it } from 'vitest';
import { devService, post } from './support.js';

// Above ~125k elements, spreading an array into a call's arguments overflows the stack; these counts are past it.
const MANY = 150_000;
const PROJECT = 'team/proj';

describe('weft dev: routes over more records than a call can take as arguments', () => {
  it('purges and replaces feedback in a project holding 150k items', async () => {
    const dev = await devService({ maxRecords: MANY });
    const item = (i: number) => ({ project_id: PROJECT, weave_ref: 'weave:///team/proj/call/c1', feedback_type: i === 0 ? 'first' : 'x', payload: {} });
    const created = await post(dev.url, '/feedback/batch/create', { batch: Array.from({ length: MANY }, (_, i) => item(i)) });
    expect(created.status).toBe(200);
    const replaced = await post(dev.url, '/feedback/replace', { ...item(0), feedback_type: 'second', feedback_id: created.body.res[0].id });
    expect(replaced.status).toBe(200);
    // The service purges feedback by id only: every `x`, named one by one.
    const ids: string[] = created.body.res.slice(1).map((r: { id: string }) => r.id);
    const query = { $expr: { $or: ids.map((id) => ({ $eq: [{ $getField: 'id' }, { $literal: id }] })) } };
    expect((await post(dev.url, '/feedback/purge', { project_id: PROJECT, query })).status).toBe(200);
    const left = await post(dev.url, '/feedback/query', { project_id: PROJECT, fields: ['feedback_type'] });
    expect(left.body.result).toEqual([{ feedback_type: 'second' }]);
  });

  it('deletes a call with 150k children, and its children with it', async () => {
    const dev = await devService();
    const start = (id: string, parent_id?: string) => ({
      mode: 'start',
      req: { start: { project_id: PROJECT, id, trace_id: 't1', parent_id, op_name: 'op', started_at: '2026-01-01T00:00:00Z', attributes: {}, inputs: {} } },
    });
    const batch = [start('root'), ...Array.from({ length: MANY }, (_, i) => start(`c${i}`, 'root'))];
    expect((await post(dev.url, '/call/upsert_batch', { batch })).status).toBe(200);
    const deleted = await post(dev.url, '/calls/delete', { project_id: PROJECT, call_ids: ['root'] });
    expect(deleted).toMatchObject({ status: 200, body: { num_deleted: MANY + 1 } });
  });

  it('takes the min and max of a metric over 150k calls in one bucket', async () => {
    const dev = await devService();
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
    const start = (id: string) => ({ mode: 'start', req: { start: { project_id: PROJECT, id, trace_id: 't1', op_name: 'op', started_at: at(0), attributes: {}, inputs: {} } } });
    const end = (id: string, ms: number) => ({ mode: 'end', req: { end: { project_id: PROJECT, id, ended_at: at(ms), summary: {} } } });
    // Every call counts 1 towards call_count; two of them end, with latencies of 3 and 7 ms.
    const batch = [...Array.from({ length: MANY }, (_, i) => start(`c${i}`)), end('c0', 7), end('c1', 3)];
    expect((await post(dev.url, '/call/upsert_batch', { batch })).status).toBe(200);
    const stats = await post(dev.url, '/calls/stats', {
      project_id: PROJECT,
      start: at(0),
      end: at(60_000),
      granularity: 3600,
      call_metrics: [
        { metric: 'call_count', aggregations: ['min', 'max'] },
        { metric: 'latency_ms', aggregations: ['min', 'max'] },
      ],
    });
    expect(stats.status).toBe(200);
    expect(stats.body.call_buckets).toEqual([{ timestamp: at(0), min_call_count: 1, max_call_count: 1, min_latency_ms: 3, max_latency_ms: 7, count: MANY }]);
  });
});
