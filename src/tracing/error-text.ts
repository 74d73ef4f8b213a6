/** What a span records of an error: its class, message and stack, without secrets and within the length limit. */
import { jsonOrText, safeStringify, scrubAndCut } from './serialize.js';

/**
 * An error's message and stack as a span records them, each through {@link scrubAndCut}: without known secrets (an SDK's
 * 401 can repeat the key) and cut to `maxLength` (an error can carry megabytes, a thrown payload or a response
 * body, and its message is recorded twice, in the status and in the exception event).
 */
export function recordedErrorText(error: unknown, maxLength: number): { message: string; stack?: string } {
  const isError = error instanceof Error;
  const message = scrubAndCut(isError ? String(error.message) : thrownText(error, maxLength), maxLength);
  return isError && error.stack ? { message, stack: scrubAndCut(String(error.stack), maxLength) } : { message };
}

/**
 * The status description of a failed span, `RateLimitError: 429 Rate limit reached`: the trace service shows it
 * as the call's exception and reads nothing else of the error (reference trace-service.md §3.3), so the class
 * goes in front of the message, as Node prints an error; the class alone when the message is empty. A thrown
 * value that is not an Error is its text alone.
 */
export function errorStatusText(error: unknown, message: string): string {
  if (!(error instanceof Error)) return message;
  const type = errorClassName(error);
  return message ? `${type}: ${message}` : type;
}

/**
 * `TypeError`; for a class that names none of its own (`class ValidationError extends Error {}`), the class's
 * name; `fallback` when neither says more than `Object`.
 */
export function errorClassName(error: object, fallback = 'Error'): string {
  const name = (error as { name?: unknown }).name;
  if (typeof name === 'string' && name && name !== 'Error') return name;
  const className = error.constructor?.name;
  if (typeof className === 'string' && className && className !== 'Object') return className;
  return typeof name === 'string' && name ? name : fallback;
}

/**
 * Text of a thrown value that is not an Error: an object as its JSON (`{"code":"RATE_LIMIT",…}`, not
 * `[object Object]`), with credential fields redacted; a string or other primitive as itself.
 */
function thrownText(thrown: unknown, maxLength: number): string {
  if (thrown !== null && (typeof thrown === 'object' || typeof thrown === 'function')) {
    return jsonOrText(safeStringify(thrown, { maxLength }));
  }
  return String(thrown);
}
