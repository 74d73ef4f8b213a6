import { HttpError } from '../http.js';
import { checkOneOf } from '../validate.js';
import type { Cost } from './cost-prices.js';
import { groupBy } from './group-by.js';
import { quantile } from './quantile.js';
import { bucketize, type BucketWindow } from './time-buckets.js';
import { type AggregatedUsage, ownUsage } from './usage.js';
import type { CallSchema } from './types.js';

/** The usage metrics `/calls/stats` knows, summed per model. */
export const USAGE_METRICS = ['input_tokens', 'output_tokens', 'total_tokens', 'input_cost', 'output_cost', 'total_cost'] as const;
/** The call metrics `/calls/stats` knows. */
export const CALL_METRICS = ['latency_ms', 'call_count', 'error_count'] as const;
const AGGREGATIONS = ['sum', 'avg', 'min', 'max', 'count'] as const;

/** One metric of `CallStatsReq` with its aggregations and percentiles. */
export interface MetricSpec {
  metric: string;
  aggregations?: string[] | null;
  percentiles?: number[] | null;
}

/** Checks the metric names, aggregations and percentiles, or throws a 422 at the offending one. */
export function checkMetrics(specs: MetricSpec[] | null | undefined, allowed: readonly string[], field: string): void {
  specs?.forEach((spec, i) => {
    checkOneOf(spec.metric, allowed, ['body', field, i, 'metric']);
    spec.aggregations?.forEach((a, j) => {
      checkOneOf(a, AGGREGATIONS, ['body', field, i, 'aggregations', j]);
    });
    spec.percentiles?.forEach((p, j) => {
      if (p < 0 || p > 100) {
        throw new HttpError(422, [{ loc: ['body', field, i, 'percentiles', j], msg: 'Input should be between 0 and 100', type: 'value_error' }]);
      }
    });
  });
}

// Loops rather than `Math.min(...values)`: spreading a large bucket into the arguments overflows the stack.
function least(values: number[]): number {
  let out = Number.POSITIVE_INFINITY;
  for (const v of values) if (v < out) out = v;
  return out;
}

function greatest(values: number[]): number {
  let out = Number.NEGATIVE_INFINITY;
  for (const v of values) if (v > out) out = v;
  return out;
}

/** Merges the per-metric aggregates into `into` (one assign per metric, not one spread of them all). */
function merged(into: Record<string, unknown>, values: Record<string, number | null>[]): Record<string, unknown> {
  for (const v of values) Object.assign(into, v);
  return into;
}

/**
 * A metric's values in one bucket, aggregated. Keys are `<metric>_<aggregation>` and `<metric>_p<N>` (the
 * reference does not show the service's naming). An empty bucket sums and counts to 0; the rest are null.
 */
function aggregate(values: number[], spec: MetricSpec): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  const sum = values.reduce((a, b) => a + b, 0);
  for (const a of spec.aggregations?.length ? spec.aggregations : ['sum']) {
    const empty = values.length === 0;
    const value =
      a === 'sum' ? sum : a === 'count' ? values.length : empty ? null : a === 'avg' ? sum / values.length : a === 'min' ? least(values) : greatest(values);
    out[`${spec.metric}_${a}`] = value;
  }
  const sorted = [...values].sort((x, y) => x - y);
  for (const p of spec.percentiles ?? []) out[`${spec.metric}_p${p}`] = quantile(sorted, p / 100);
  return out;
}

function callMetric(call: CallSchema, metric: string): number | undefined {
  if (metric === 'call_count') return 1;
  if (metric === 'error_count') return call.summary?.weave?.status === 'error' ? 1 : 0;
  return typeof call.summary?.weave?.latency_ms === 'number' ? call.summary.weave.latency_ms : undefined;
}

function usageMetric(u: AggregatedUsage, metric: string): number {
  const input = metric.endsWith('cost') ? (u.prompt_tokens_total_cost ?? 0) : u.prompt_tokens;
  const output = metric.endsWith('cost') ? (u.completion_tokens_total_cost ?? 0) : u.completion_tokens;
  if (metric.startsWith('input')) return input;
  if (metric.startsWith('output')) return output;
  return metric === 'total_tokens' ? u.total_tokens : input + output;
}

/**
 * `/calls/stats`: calls (already filtered, presented so that status and latency are set) grouped into
 * buckets by start time, from `start` on. Every bucket has a call bucket; usage buckets exist per model
 * that has usage in the bucket.
 */
export function callStats(
  calls: readonly CallSchema[],
  window: BucketWindow,
  usageSpecs: MetricSpec[],
  callSpecs: MetricSpec[],
  prices: readonly Cost[],
): { usage_buckets: Record<string, unknown>[]; call_buckets: Record<string, unknown>[] } {
  const usage_buckets: Record<string, unknown>[] = [];
  const call_buckets: Record<string, unknown>[] = [];
  for (const { timestamp, members } of bucketize(calls, (call) => call.started_at, window)) {
    if (callSpecs.length > 0) {
      const values = callSpecs.map((spec) =>
        aggregate(
          members.map((c) => callMetric(c, spec.metric)).filter((v): v is number => v !== undefined),
          spec,
        ),
      );
      call_buckets.push(merged({ timestamp }, values));
    }
    if (usageSpecs.length === 0) continue;
    const byModel = groupBy(
      members.flatMap((call) => Object.entries(ownUsage(call, prices))),
      ([model]) => model,
    );
    for (const [model, usages] of byModel) {
      const values = usageSpecs.map((spec) => aggregate(usages.map(([, u]) => usageMetric(u, spec.metric)), spec));
      usage_buckets.push(merged({ timestamp, model }, values));
    }
  }
  return { usage_buckets, call_buckets };
}
