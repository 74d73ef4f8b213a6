import type { CallOptions } from './types.js';

/**
 * The caller's {@link CallOptions} as a request takes them, and nothing else: what a resource method takes
 * besides (the training chat's `trailingSlash`) or a caller without types adds (`query`, `body`) stops here, so it
 * neither reaches the wire nor overrides what the resource builds. Every resource forwards its options through
 * this one function.
 *
 * @param idempotent the endpoint's own decision (a create says `false`, a query `true`); the caller's
 *   `idempotent` wins over it, and `undefined` leaves it to the method (GET, PUT and DELETE are retried).
 *
 * @example
 * return this.core.request({ method: 'POST', path: '/preview/models', body, ...forwardCallOptions(options, false) });
 */
export function forwardCallOptions(options: CallOptions | undefined, idempotent?: boolean): CallOptions {
  const { signal, timeoutMs, maxRetries, headers } = options ?? {};
  return { signal, timeoutMs, maxRetries, headers, idempotent: options?.idempotent ?? idempotent };
}
