import type { DiagLogger } from '@opentelemetry/api';

/** A diagnostic logger that keeps what it was told, at every level, so tests read exactly what a user would see. */
export function recordingLogger(): DiagLogger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (...args: unknown[]) => {
    lines.push(args.map(String).join(' '));
  };
  return { lines, error: keep, warn: keep, info: keep, debug: keep, verbose: keep };
}
