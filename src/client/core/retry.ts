/**
 * When and how long to wait before trying a request again. Pure functions, so the policy can be read (and
 * tested) apart from the request loop in http.ts. What a `Retry-After` asks is read by src/retry-after.ts, which
 * the export pipeline shares.
 */

/** Statuses that mean "try again later": the request did not take effect, or can safely be repeated. */
const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

/**
 * Statuses that say the service refused the request before doing any of it (rate limit, overloaded), so
 * even a request that must not run twice (one that bills) can be sent again.
 */
const UNPROCESSED_STATUSES = new Set([429, 503]);

/** Methods that RFC 9110 defines as idempotent; requests with any other method are retried only on opt-in. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** How the delay between attempts grows. */
export interface BackoffOptions {
  /** Delay before the first retry, before jitter. Default 500 ms. */
  initialDelayMs?: number | undefined;
  /** Upper bound of the delay computed by the backoff (not of `Retry-After`). Default 8 000 ms. */
  maxDelayMs?: number | undefined;
}

/** The longest `Retry-After` weft will wait; a longer one ends the retries and surfaces the error. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** True for 408, 429, 500, 502, 503 and 504. */
export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/** True for 429 and 503, the answers after which a non-idempotent request may still be retried. */
export function isUnprocessedStatus(status: number): boolean {
  return UNPROCESSED_STATUSES.has(status);
}

/** True for GET, HEAD, OPTIONS, PUT and DELETE (RFC 9110), which may be sent twice. */
export function isIdempotentMethod(method: string): boolean {
  return IDEMPOTENT_METHODS.has(method.toUpperCase());
}

/**
 * Exponential backoff with "equal jitter": half of the exponential step is fixed, the other half random,
 * so concurrent clients spread out without any of them retrying immediately.
 */
export function backoffDelay(retryNumber: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const initial = options.initialDelayMs ?? 500;
  const max = options.maxDelayMs ?? 8_000;
  const step = Math.min(max, initial * 2 ** Math.max(0, retryNumber - 1));
  return Math.round(step / 2 + (random() * step) / 2);
}
