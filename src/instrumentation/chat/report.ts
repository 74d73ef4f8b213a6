import { reportOwnFailure } from '../../diagnostics.js';

/**
 * Records a failure inside weft's own tracing code: reported once per kind through OTel's `diag`, never thrown
 * to the app. The error's message is not logged, since it may quote request data.
 */
export function reportInternalError(kind: string, error: unknown): void {
  reportOwnFailure(`instrumentation:${kind}`, `chat tracing failed in ${kind}`, error);
}
