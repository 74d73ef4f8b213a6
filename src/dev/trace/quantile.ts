/**
 * The `q`-quantile (`q` from 0 to 1) of values sorted ascending, interpolated linearly between the two closest
 * ranks, as ClickHouse's `quantile` is (exact for up to 8192 values, which it samples beyond). The service computes
 * every percentile weft dev answers with it: a thread's `p50_turn_duration_ms` and `p99_turn_duration_ms`
 * (`quantile(0.5)`, `quantile(0.99)`) and the `percentiles` of `/calls/stats` (`quantileOrNull(p / 100)`, `p` from 0
 * to 100). Null for no values, as ClickHouse's is.
 *
 * @example quantile([1000, 2000, 4000], 0.75) // 3000
 */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = (sorted.length - 1) * q;
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}
