/**
 * Checks of the options the HTTP core takes (from `new Client()` and from every call), so that a value of the
 * wrong kind fails at once with a {@link WeftConfigError} naming the option and what was expected, rather than
 * deep inside undici (where it would be classified as a connection error and retried) or not at all.
 */
import { WeftConfigError } from '../../config/errors.js';
import { describeValue, kindOf } from '../../config/settings.js';
import { HEADER_NAME_RULE, isHeaderName } from '../../header-name.js';
import type { BackoffOptions } from './retry.js';
import { MAX_TIMER_MS } from './timer-limit.js';

/** A count of retries: a whole number ≥ 0. */
export function retryCount(value: unknown, fallback: number, option: string): number {
  const count = nonNegative(value, fallback, option);
  if (!Number.isInteger(count)) {
    throw new WeftConfigError(option, undefined, `weft: option \`${option}\` must be a whole number ≥ 0, got ${count}.`);
  }
  return count;
}

/** A `timeoutMs`: ≥ 0 like any count, and no longer than a Node timer can wait. */
export function timerMs(value: unknown, fallback: number, option: string): number {
  const ms = nonNegative(value, fallback, option);
  if (ms > MAX_TIMER_MS) {
    throw new WeftConfigError(
      option,
      undefined,
      `weft: option \`${option}\` must be at most ${MAX_TIMER_MS} ms (about 24.8 days, the longest Node timer), got ${ms}${option === 'timeoutMs' ? '; use 0 for no timeout' : ''}.`,
    );
  }
  return ms;
}

/** The backoff's delays become timers too, so they have the same bounds as `timeoutMs`. */
export function checkedBackoff(backoff: BackoffOptions): BackoffOptions {
  for (const key of ['initialDelayMs', 'maxDelayMs'] as const) {
    if (backoff[key] !== undefined) timerMs(backoff[key], 0, `backoff.${key}`);
  }
  return backoff;
}

/** An option that takes a function (`onRetry`, `unauthenticatedHint`), or nothing. */
export function checkedFunction<F>(value: F | undefined | null, option: string): F | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'function') {
    throw new WeftConfigError(option, undefined, `weft: option \`${option}\` must be a function, got ${kindOf(value)}.`);
  }
  return value;
}

/** A call's `signal`: an `AbortSignal` (or one that behaves like it), or nothing. */
export function checkedSignal(value: unknown): AbortSignal | undefined {
  if (value === undefined || value === null) return undefined;
  const signal = value as Partial<AbortSignal>;
  if (typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function' || typeof signal.removeEventListener !== 'function') {
    throw new WeftConfigError('signal', undefined, `weft: option \`signal\` must be an AbortSignal, got ${kindOf(value)}.`);
  }
  return value as AbortSignal;
}

/** A call's `idempotent`: true, false, or nothing. */
export function checkedIdempotent(value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') {
    throw new WeftConfigError('idempotent', undefined, `weft: option \`idempotent\` must be true or false, got ${kindOf(value)}.`);
  }
  return value;
}

// What undici (and Node's http) accept in a value: no control character but the tab (so no CR or LF, which would
// let a value start a header of its own). A name is checked by isHeaderName().
const HEADER_VALUE_FORBIDDEN = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * Checks the `headers` option of the client or of a call: names must be HTTP tokens, values strings (or
 * numbers) without control characters; `null` (removes a default) and `undefined` (sends nothing) pass. The
 * error names the header but never shows its value, which may be a credential.
 */
export function checkHeaders(headers: unknown): void {
  if (headers === undefined || headers === null) return;
  if (typeof headers !== 'object' || Array.isArray(headers)) {
    throw new WeftConfigError('headers', undefined, `weft: option \`headers\` must be an object of header names to values, got ${kindOf(headers)}.`);
  }
  for (const [name, value] of Object.entries(headers)) {
    if (!isHeaderName(name)) {
      throw new WeftConfigError(
        'headers',
        undefined,
        `weft: option \`headers\` has an invalid header name ${JSON.stringify(name)}: a name is ${HEADER_NAME_RULE}.`,
      );
    }
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' && typeof value !== 'number') {
      throw new WeftConfigError(
        'headers',
        undefined,
        `weft: option \`headers\`: header ${JSON.stringify(name)} must have a string value, got ${kindOf(value)}.`,
      );
    }
    if (HEADER_VALUE_FORBIDDEN.test(String(value))) {
      throw new WeftConfigError(
        'headers',
        undefined,
        `weft: option \`headers\`: the value of header ${JSON.stringify(name)} holds a control character (CR, LF, NUL…), which a header cannot carry (the value is not shown).`,
      );
    }
  }
}

function nonNegative(value: unknown, fallback: number, option: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new WeftConfigError(option, undefined, `weft: option \`${option}\` must be a number ≥ 0, got ${describeValue(value)}.`);
  }
  return value;
}
