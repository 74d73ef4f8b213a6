import type { MutationLog } from './persistence.js';
import { applyRecord, type DevRecord, type DevStores, snapshotRecords } from './records.js';

/**
 * The one write path of the dev service's data, trace and training alike: apply the record in memory,
 * append it to the data file, and when it pushed old traces out, tell the operator (one line per burst, not
 * one per trace) and keep the file bounded too.
 */
export function createWriter(stores: DevStores, dataLog: MutationLog | undefined, maxTraces: number, log: (line: string) => void) {
  let evictionsSinceNotice = 0;
  // The data file keeps evicted traces until it is rewritten; rewriting once as many traces were evicted as
  // are kept bounds it to about twice the live data, at an amortised cost of one record per write.
  let evictedSinceCompaction = 0;
  return (record: DevRecord): void => {
    const evicted = applyRecord(stores, record);
    dataLog?.append(record);
    if (evicted === 0) return;
    if (evictionsSinceNotice === 0) {
      setImmediate(() => {
        log(
          `evicted ${evictionsSinceNotice} oldest trace(s) to keep at most ${maxTraces} (${stores.trace.evictedTraces} evicted in total; raise --max-traces to keep more)`,
        );
        evictionsSinceNotice = 0;
      }).unref();
    }
    evictionsSinceNotice += evicted;
    evictedSinceCompaction += evicted;
    if (dataLog && evictedSinceCompaction >= maxTraces) {
      // The snapshot holds the training state too: a rewrite must not drop what is not a trace.
      dataLog.rewrite(snapshotRecords(stores));
      evictedSinceCompaction = 0;
    }
  };
}
