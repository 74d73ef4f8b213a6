/**
 * Counters of one weft export pipeline, readable on the `register()` handle. They only ever grow, except
 * `spansQueued`, which is what waits in memory for the batch processor right now.
 */
export interface ExportStats {
  /** Sampled spans that ended and entered the pipeline. */
  spansEnded: number;
  /** Spans the trace service accepted. */
  spansExported: number;
  /** Spans given up on: queue full while the backend was slow or down, refused by the service, or still failing at shutdown. */
  spansDropped: number;
  /** Export requests that failed (each may be retried). */
  exportFailures: number;
  /** Spans waiting in the batch queue. */
  spansQueued: number;
}

/** A pipeline's counters, all zero: one object, which the pipeline's parts update in place. */
export function createExportStats(): ExportStats {
  return { spansEnded: 0, spansExported: 0, spansDropped: 0, exportFailures: 0, spansQueued: 0 };
}
