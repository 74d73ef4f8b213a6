import { reportOnce } from '../diagnostics.js';

/**
 * Reports a failure of weft's own tracing code (never the app's) once, through OTel's diagnostic logger. The
 * app's call has already gone ahead or goes ahead untraced; nothing is thrown.
 */
export function reportTracingFailure(where: string, error: unknown): void {
  try {
    const message = error instanceof Error ? error.message : String(error);
    reportOnce(`tracing-${where}`, `tracing failed in ${where}; the call itself is unaffected: ${message}`);
  } catch {
    // The logger itself failed; there is nowhere left to report to.
  }
}
