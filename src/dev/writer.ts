import type { MutationLog } from './persistence.js';
import type { Mutation, TraceStore } from './trace/store.js';

/**
 * The one write path of the trace data: apply the mutation in memory, append it to the data file, and when
 * it pushed old traces out, tell the operator (one line per burst, not one per trace) and keep the file
 * bounded too.
 */
export function createWriter(store: TraceStore, dataLog: MutationLog | undefined, maxTraces: number, log: (line: string) => void) {
  let evictionsSinceNotice = 0;
  // The data file keeps evicted traces until it is rewritten; rewriting once as many traces were evicted as
  // are kept bounds it to about twice the live data, at an amortised cost of one record per write.
  let evictedSinceCompaction = 0;
  return (mutation: Mutation): void => {
    const evicted = store.apply(mutation);
    dataLog?.append(mutation);
    if (evicted === 0) return;
    if (evictionsSinceNotice === 0) {
      setImmediate(() => {
        log(
          `evicted ${evictionsSinceNotice} oldest trace(s) to keep at most ${maxTraces} (${store.evictedTraces} evicted in total; raise --max-traces to keep more)`,
        );
        evictionsSinceNotice = 0;
      }).unref();
    }
    evictionsSinceNotice += evicted;
    evictedSinceCompaction += evicted;
    if (dataLog && evictedSinceCompaction >= maxTraces) {
      dataLog.rewrite(store.snapshot());
      evictedSinceCompaction = 0;
    }
  };
}
