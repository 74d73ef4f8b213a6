import { describe, expect, it } from 'vitest';
import { writeCall } from './call-writer.js';
import { devClient } from './client-support.js';

/** A trace: a root without usage, two LLM calls below it, and a grandchild on another model. */
async function writeTrace(client: Parameters<typeof writeCall>[0]) {
  await writeCall(client, { id: 'root', trace_id: 't1' });
  await writeCall(client, { id: 'a', trace_id: 't1', parent_id: 'root', usage: { 'gpt-x': { prompt_tokens: 10, completion_tokens: 5 } } });
  await writeCall(client, { id: 'b', trace_id: 't1', parent_id: 'root', usage: { 'gpt-x': { prompt_tokens: 1, completion_tokens: 2, requests: 2 } } });
  await writeCall(client, { id: 'c', trace_id: 't1', parent_id: 'b', usage: { 'mini': { prompt_tokens: 3, completion_tokens: 4 } } });
}

describe('weft dev: usage computed from stored calls, through the Client', () => {
  it('rolls up each root call’s usage over its descendants, by model', async () => {
    const { client } = await devClient();
    await writeTrace(client);
    expect(await client.trace.calls.usage({ call_ids: ['root'] })).toEqual({
      call_usage: {
        root: {
          'gpt-x': { requests: 3, prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
          mini: { requests: 1, prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
        },
      },
    });
  });

  it('prices usage with the project’s costs when include_costs is set', async () => {
    const { client } = await devClient();
    await client.trace.costs.create({ costs: { 'gpt-x': { prompt_token_cost: 0.5, completion_token_cost: 2, effective_date: '2025-01-01T00:00:00Z' } } });
    await writeTrace(client);
    const { call_usage } = await client.trace.calls.usage({ call_ids: ['a'], include_costs: true });
    expect(call_usage.a).toEqual({
      'gpt-x': { requests: 1, prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_total_cost: 5, completion_tokens_total_cost: 10 },
    });
  });

  it('gives every call of a trace its rolled-up usage from /trace/usage', async () => {
    const { client } = await devClient();
    await writeTrace(client);
    const { call_usage } = await client.trace.calls.traceUsage({ filter: { trace_ids: ['t1'] } });
    expect(Object.keys(call_usage ?? {}).sort()).toEqual(['a', 'b', 'c', 'root']);
    expect(call_usage?.b).toEqual({
      'gpt-x': { requests: 2, prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
      mini: { requests: 1, prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
  });

  it('rolls up /calls/usage over each root’s own trace when the project holds several', async () => {
    const { client } = await devClient();
    await writeTrace(client);
    await writeCall(client, { id: 'other', trace_id: 't2', usage: { 'gpt-x': { prompt_tokens: 100, completion_tokens: 100 } } });
    await writeCall(client, { id: 'other-child', trace_id: 't2', parent_id: 'other', usage: { mini: { prompt_tokens: 1, completion_tokens: 1 } } });
    await writeCall(client, { id: 'unasked', trace_id: 't3', usage: { 'gpt-x': { prompt_tokens: 7, completion_tokens: 7 } } });
    expect(await client.trace.calls.usage({ call_ids: ['b', 'other'] })).toEqual({
      call_usage: {
        b: {
          'gpt-x': { requests: 2, prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
          mini: { requests: 1, prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
        },
        other: {
          'gpt-x': { requests: 1, prompt_tokens: 100, completion_tokens: 100, total_tokens: 200 },
          mini: { requests: 1, prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        },
      },
    });
  });

  it('counts a call re-sent under another trace once, in the trace it now belongs to', async () => {
    const { client } = await devClient();
    await writeCall(client, { id: 'r1', trace_id: 't1' });
    await writeCall(client, { id: 'r2', trace_id: 't2' });
    await writeCall(client, { id: 'moved', trace_id: 't1', parent_id: 'r1', usage: { mini: { prompt_tokens: 1, completion_tokens: 1 } } });
    await writeCall(client, { id: 'moved', trace_id: 't2', parent_id: 'r2', usage: { mini: { prompt_tokens: 1, completion_tokens: 1 } } });
    expect(await client.trace.calls.usage({ call_ids: ['r1', 'r2'] })).toEqual({
      call_usage: { r1: {}, r2: { mini: { requests: 1, prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } } },
    });
  });

  it('leaves out of /calls/usage the ids that are not stored', async () => {
    const { client } = await devClient();
    expect(await client.trace.calls.usage({ call_ids: ['nope'] })).toEqual({ call_usage: {} });
  });
});

describe('weft dev: call statistics in time buckets, through the Client', () => {
  it('counts calls and errors and sums latency per bucket from start', async () => {
    const { client } = await devClient();
    await writeCall(client, { id: 'a', trace_id: 't1', started_at: '2026-01-01T00:00:10Z', ended_at: '2026-01-01T00:00:11Z' });
    await writeCall(client, { id: 'b', trace_id: 't2', started_at: '2026-01-01T00:00:20Z', ended_at: '2026-01-01T00:00:23Z', exception: 'boom' });
    await writeCall(client, { id: 'c', trace_id: 't3', started_at: '2026-01-01T00:01:30Z', ended_at: '2026-01-01T00:01:31Z' });
    const stats = await client.trace.calls.stats({
      start: '2026-01-01T00:00:00Z',
      end: '2026-01-01T00:02:00Z',
      granularity: 60,
      call_metrics: [{ metric: 'call_count' }, { metric: 'error_count' }, { metric: 'latency_ms', aggregations: ['max'] }],
    });
    expect(stats).toEqual({
      start: '2026-01-01T00:00:00.000Z',
      end: '2026-01-01T00:02:00.000Z',
      granularity: 60,
      timezone: 'UTC',
      usage_buckets: [],
      call_buckets: [
        { timestamp: '2026-01-01T00:00:00.000Z', sum_call_count: 2, sum_error_count: 1, max_latency_ms: 3000, count: 2 },
        { timestamp: '2026-01-01T00:01:00.000Z', sum_call_count: 1, sum_error_count: 0, max_latency_ms: 1000, count: 1 },
      ],
    });
  });

  it('sums token usage per bucket and model', async () => {
    const { client } = await devClient();
    await writeTrace(client);
    const stats = await client.trace.calls.stats({
      start: '2026-01-01T00:00:00Z',
      end: '2026-01-01T01:00:00Z',
      usage_metrics: [{ metric: 'total_tokens' }, { metric: 'input_tokens', aggregations: ['count'] }],
    });
    // An hour: the service's 5-minute buckets, each with every model of the window.
    expect(stats.granularity).toBe(300);
    expect(stats.usage_buckets).toHaveLength(24);
    expect(stats.usage_buckets.slice(0, 4)).toEqual([
      { timestamp: '2026-01-01T00:00:00.000Z', model: 'gpt-x', sum_total_tokens: 18, count_input_tokens: 2, count: 2 },
      { timestamp: '2026-01-01T00:00:00.000Z', model: 'mini', sum_total_tokens: 7, count_input_tokens: 1, count: 1 },
      { timestamp: '2026-01-01T00:05:00.000Z', model: 'gpt-x', sum_total_tokens: 0, count_input_tokens: 0, count: 0 },
      { timestamp: '2026-01-01T00:05:00.000Z', model: 'mini', sum_total_tokens: 0, count_input_tokens: 0, count: 0 },
    ]);
  });

  it('interpolates percentiles between the closest ranks, as the service’s ClickHouse quantile does', async () => {
    const { client } = await devClient();
    await writeCall(client, { id: 'a', trace_id: 't1', started_at: '2026-01-01T00:00:10Z', ended_at: '2026-01-01T00:00:11Z' });
    await writeCall(client, { id: 'b', trace_id: 't2', started_at: '2026-01-01T00:00:20Z', ended_at: '2026-01-01T00:00:22Z' });
    await writeCall(client, { id: 'c', trace_id: 't3', started_at: '2026-01-01T00:00:30Z', ended_at: '2026-01-01T00:00:34Z' });
    const stats = await client.trace.calls.stats({
      start: '2026-01-01T00:00:00Z',
      end: '2026-01-01T00:01:00Z',
      granularity: 60,
      call_metrics: [{ metric: 'latency_ms', aggregations: ['count'], percentiles: [0, 50, 75, 100] }],
    });
    // Latencies 1000, 2000 and 4000: p75 lies halfway between the second and the third (nearest rank would say 4000).
    expect(stats.call_buckets).toEqual([
      { timestamp: '2026-01-01T00:00:00.000Z', count_latency_ms: 3, p0_latency_ms: 1000, p50_latency_ms: 2000, p75_latency_ms: 3000, p100_latency_ms: 4000, count: 3 },
    ]);
  });

  it('names columns as the service does, and answers an empty bucket with 0 sums and null extremes', async () => {
    const { client } = await devClient();
    await writeCall(client, { id: 'a', trace_id: 't1', started_at: '2026-01-01T00:00:10Z', ended_at: '2026-01-01T00:00:11.500Z' });
    const stats = await client.trace.calls.stats({
      start: '2026-01-01T00:00:00Z',
      end: '2026-01-01T00:02:00Z',
      granularity: 60,
      call_metrics: [{ metric: 'latency_ms', aggregations: ['avg', 'min'], percentiles: [99.9] }, { metric: 'call_count', percentiles: [50] }],
    });
    expect(stats.call_buckets).toEqual([
      { timestamp: '2026-01-01T00:00:00.000Z', avg_latency_ms: 1500, min_latency_ms: 1500, 'p99.9_latency_ms': 1500, p50_call_count: 1, count: 1 },
      { timestamp: '2026-01-01T00:01:00.000Z', avg_latency_ms: 0, min_latency_ms: null, 'p99.9_latency_ms': null, p50_call_count: null, count: 0 },
    ]);
  });

  it('cuts buckets from the epoch, not from start, and lists every model of the window in each', async () => {
    const { client } = await devClient();
    await writeCall(client, { id: 'r1', trace_id: 't1', started_at: '2026-01-01T00:00:50Z', usage: { 'gpt-x': { prompt_tokens: 1, completion_tokens: 1 } } });
    await writeCall(client, { id: 'r2', trace_id: 't2', started_at: '2026-01-01T00:01:10Z', usage: { mini: { prompt_tokens: 2, completion_tokens: 2 } } });
    const stats = await client.trace.calls.stats({
      start: '2026-01-01T00:00:30Z',
      end: '2026-01-01T00:01:30Z',
      granularity: 60,
      usage_metrics: [{ metric: 'total_tokens' }],
      call_metrics: [{ metric: 'call_count' }],
    });
    expect(stats.call_buckets).toEqual([
      { timestamp: '2026-01-01T00:00:00.000Z', sum_call_count: 1, count: 1 },
      { timestamp: '2026-01-01T00:01:00.000Z', sum_call_count: 1, count: 1 },
    ]);
    expect(stats.usage_buckets).toEqual([
      { timestamp: '2026-01-01T00:00:00.000Z', model: 'gpt-x', sum_total_tokens: 2, count: 1 },
      { timestamp: '2026-01-01T00:00:00.000Z', model: 'mini', sum_total_tokens: 0, count: 0 },
      { timestamp: '2026-01-01T00:01:00.000Z', model: 'gpt-x', sum_total_tokens: 0, count: 0 },
      { timestamp: '2026-01-01T00:01:00.000Z', model: 'mini', sum_total_tokens: 4, count: 1 },
    ]);
  });

  it('makes buckets coarser rather than answer more than 10,000, as the service does', async () => {
    const { client } = await devClient();
    const stats = await client.trace.calls.stats({ start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z', granularity: 1, call_metrics: [{ metric: 'call_count' }] });
    expect(stats.granularity).toBe(9);
    expect(stats.call_buckets).toHaveLength(9600);
  });

  it('refuses an unknown metric with a 422 naming it', async () => {
    const { client } = await devClient();
    // biome-ignore lint/suspicious/noExplicitAny: the point is a body the types would refuse
    const bad = { start: '2026-01-01T00:00:00Z', call_metrics: [{ metric: 'vibes' }] } as any;
    await expect(client.trace.calls.stats(bad)).rejects.toMatchObject({
      status: 422,
      detail: [{ loc: ['body', 'call_metrics', 0, 'metric'] }],
    });
  });
});

describe('weft dev: call costs on reads, through the Client', () => {
  it('adds summary.weave.costs for the priced models when a read asks for costs', async () => {
    const { client } = await devClient();
    await client.trace.costs.create({ costs: { 'gpt-x': { prompt_token_cost: 0.5, completion_token_cost: 2, effective_date: '2025-01-01T00:00:00Z' } } });
    await writeCall(client, { id: 'c1', trace_id: 't1', usage: { 'gpt-x': { prompt_tokens: 10, completion_tokens: 5 }, mini: { prompt_tokens: 1 } } });
    const { call } = await client.trace.calls.read({ id: 'c1', include_costs: true });
    expect(call?.summary?.weave?.costs).toEqual({
      'gpt-x': {
        requests: 1,
        prompt_tokens: 10,
        completion_tokens: 5,
        total_tokens: 15,
        prompt_tokens_total_cost: 5,
        completion_tokens_total_cost: 10,
        prompt_token_cost: 0.5,
        completion_token_cost: 2,
        prompt_token_cost_unit: 'USD',
        completion_token_cost_unit: 'USD',
        effective_date: '2025-01-01T00:00:00.000Z',
        provider_id: 'default',
        pricing_level: 'project',
        pricing_level_id: 'team/proj',
      },
    });
  });

  it('adds costs to streamed calls only when the query asks for them', async () => {
    const { client } = await devClient();
    await client.trace.costs.create({ costs: { 'gpt-x': { prompt_token_cost: 1, completion_token_cost: 1, effective_date: '2025-01-01T00:00:00Z' } } });
    await writeCall(client, { id: 'c1', trace_id: 't1', usage: { 'gpt-x': { prompt_tokens: 2, completion_tokens: 3 } } });
    const [plain] = await client.trace.calls.streamQuery().collect();
    const [costed] = await client.trace.calls.streamQuery({ include_costs: true }).collect();
    expect(plain?.summary?.weave?.costs).toBeUndefined();
    expect(costed?.summary?.weave?.costs?.['gpt-x']).toMatchObject({ prompt_tokens_total_cost: 2, completion_tokens_total_cost: 3 });
  });
});

