/** Median of a list of numbers; NaN for an empty list. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The p-th percentile (0..100) by nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Formats a number with a fixed count of decimals, or a dash when it is not a finite number. */
export function fmt(value: number, decimals = 2): string {
  return Number.isFinite(value) ? value.toFixed(decimals) : '-';
}

/** Formats a ratio as `0.42×`, or a dash. */
export function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : '-';
}

/**
 * One-sided sign test: the chance that at least `k` of `n` paired rounds come out the same way when neither side
 * is really ahead (each round a coin toss). Small means the difference holds beyond round-to-round noise.
 */
export function signTestP(k: number, n: number): number {
  let tail = 0;
  let choose = 1; // n choose i, built up from i = 0
  for (let i = 0; i <= n; i++) {
    if (i >= k) tail += choose;
    choose = (choose * (n - i)) / (i + 1);
  }
  return tail / 2 ** n;
}
