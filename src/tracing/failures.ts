import { reportOwnFailure } from '../diagnostics.js';

/**
 * Reports a failure of weft's own tracing code (never the app's) once, through OTel's diagnostic logger. The
 * app's call has already gone ahead or goes ahead untraced; nothing is thrown. The error's message is not
 * logged, since it may quote the value being recorded (a `redactContent` hook's error, say).
 */
export function reportTracingFailure(where: string, error: unknown): void {
  try {
    reportOwnFailure(`tracing-${where}`, `tracing failed in ${where}`, error);
  } catch {
    // The logger itself failed; there is nowhere left to report to.
  }
}
