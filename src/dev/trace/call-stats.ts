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
 * A metric's values in one bucket, aggregated, under the service's column names: `<aggregation>_<metric>` and
 * `p<N>_<metric>` (`sum_total_tokens`, `p99.9_latency_ms`). With neither aggregations nor percentiles asked for,
 * the sum. In a bucket without values the sum, the count and the average are 0 (the service's `COALESCE(…, 0)`),
 * the least, the greatest and the percentiles null (0 would be a value).
 */
function aggregate(values: number[], spec: MetricSpec): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  const percentiles = spec.percentiles ?? [];
  const aggregations = spec.aggregations?.length ? spec.aggregations : percentiles.length > 0 ? [] : ['sum'];
  const sum = values.reduce((a, b) => a + b, 0);
  const empty = values.length === 0;
  for (const a of aggregations) {
    const value =
      a === 'sum' ? sum : a === 'count' ? values.length : a === 'avg' ? (empty ? 0 : sum / values.length) : empty ? null : a === 'min' ? least(values) : greatest(values);
    out[`${a}_${spec.metric}`] = value;
  }
  const sorted = [...values].sort((x, y) => x - y);
  for (const p of percentiles) out[`p${p}_${spec.metric}`] = quantile(sorted, p / 100);
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
 * buckets by start time. As the service answers: a call bucket for every bucket of the window, and a usage bucket
 * for every bucket and every model with usage anywhere in the window (ordered by bucket, then model), each with
 * `count`, the calls (or the calls' usage entries) it aggregates, 0 where there are none.
 */
export function callStats(
  calls: readonly CallSchema[],
  window: BucketWindow,
  usageSpecs: MetricSpec[],
  callSpecs: MetricSpec[],
  prices: readonly Cost[],
): { usage_buckets: Record<string, unknown>[]; call_buckets: Record<string, unknown>[] } {
  const buckets = bucketize(calls, (call) => call.started_at, window);
  const call_buckets =
    callSpecs.length === 0
      ? []
      : buckets.map(({ timestamp, members }) => {
          const values = callSpecs.map((spec) =>
            aggregate(
              members.map((c) => callMetric(c, spec.metric)).filter((v): v is number => v !== undefined),
              spec,
            ),
          );
          return { ...merged({ timestamp }, values), count: members.length };
        });
  if (usageSpecs.length === 0) return { usage_buckets: [], call_buckets };
  const usageByBucket = buckets.map(({ timestamp, members }) => ({
    timestamp,
    byModel: groupBy(
      members.flatMap((call) => Object.entries(ownUsage(call, prices))),
      ([model]) => model,
    ),
  }));
  const models = [...new Set(usageByBucket.flatMap(({ byModel }) => [...byModel.keys()]))].sort();
  const usage_buckets = usageByBucket.flatMap(({ timestamp, byModel }) =>
    models.map((model) => {
      const usages = byModel.get(model) ?? [];
      const values = usageSpecs.map((spec) => aggregate(usages.map(([, u]) => usageMetric(u, spec.metric)), spec));
      return { ...merged({ timestamp, model }, values), count: usages.length };
    }),
  );
  return { usage_buckets, call_buckets };
}
