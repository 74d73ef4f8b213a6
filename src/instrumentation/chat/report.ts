import { reportOnce } from '../../diagnostics.js';

let count = 0;

/**
 * Records a failure inside weft's own tracing code: counted, reported once per kind through OTel's `diag`,
 * never thrown to the app. The error's message is not logged, since it may quote request data.
 */
export function reportInternalError(kind: string, error: unknown): void {
  count += 1;
  const name = error instanceof Error ? error.name : typeof error;
  reportOnce(`instrumentation:${kind}`, `chat tracing failed in ${kind} (${name}); the call itself is unaffected.`);
}

/** How many failures of weft's chat tracing code were caught in this process (weft's own, not the app's). */
export function internalErrorCount(): number {
  return count;
}
