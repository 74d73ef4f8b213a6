import type { MutationLog } from './persistence.js';
import { applyRecord, type DevRecord, type DevStores, snapshotRecords } from './records.js';

/** The fewest superseded records worth a rewrite of the data file (so that a small file is not rewritten on every delete). */
export const MIN_SUPERSEDED_FOR_COMPACTION = 1000;

/**
 * About how many lines of the data file `record` leaves dead once applied: a deletion is dead itself and
 * kills a line per id it names, a put over a stored record or call kills the older line. Counted before the
 * record is applied. Ends and job events merged into a live call or job are not counted: they stay as large
 * as the live data they make up.
 */
export function supersededBy(stores: DevStores, record: DevRecord): number {
  switch (record.kind) {
    case 'feedback_delete':
    case 'record_delete':
      return 1 + (record.ids?.length ?? 0);
    case 'calls_delete':
      return 1 + (record.call_ids?.length ?? 0);
    case 'obj_delete':
      return 1 + (record.digests?.length ?? 1);
    case 'training_checkpoints_delete':
      return 1 + (record.steps?.length ?? 0);
    case 'training_model_delete':
      return 2;
    case 'record_put':
      return stores.collections.get(record.collection, record.project_id, record.id) ? 1 : 0;
    case 'call':
      return record.call && stores.trace.call(record.call.project_id, record.call.id) ? 1 : 0;
    default:
      return 0;
  }
}

/**
 * Whether the data file is due for compaction: once the superseded records make up half of its lines (and
 * at least {@link MIN_SUPERSEDED_FOR_COMPACTION}). This bounds the file to about twice the live data plus
 * that minimum, however many deletes and replaces it sees, and costs at most two lines rewritten per
 * superseded line, amortised.
 */
export function compactionDue(superseded: number, lines: number): boolean {
  return superseded >= MIN_SUPERSEDED_FOR_COMPACTION && superseded * 2 >= lines;
}

/**
 * The one write path of the dev service's data, trace and training alike: apply the record in memory,
 * append it to the data file, and when it pushed old traces out, tell the operator (one line per burst, not
 * one per trace). The data file is kept bounded too: it is rewritten from the live state after evictions
 * (see below) and once superseded records pile up (see {@link compactionDue}); `superseded` counts those
 * already in the file when the writer starts.
 */
export function createWriter(stores: DevStores, dataLog: MutationLog | undefined, maxTraces: number, log: (line: string) => void, superseded = 0) {
  let evictionsSinceNotice = 0;
  // The data file keeps evicted traces until it is rewritten; rewriting once as many traces were evicted as
  // are kept bounds it to about twice the live data, at an amortised cost of one record per write.
  let evictedSinceCompaction = 0;
  let supersededSinceCompaction = superseded;
  return (record: DevRecord): void => {
    const dead = dataLog ? supersededBy(stores, record) : 0;
    const evicted = applyRecord(stores, record);
    dataLog?.append(record);
    supersededSinceCompaction += dead;
    if (evicted > 0) {
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
    }
    if (dataLog && (evictedSinceCompaction >= maxTraces || compactionDue(supersededSinceCompaction, dataLog.lines))) {
      // The snapshot holds the training state too: a rewrite must not drop what is not a trace.
      dataLog.rewrite(snapshotRecords(stores));
      evictedSinceCompaction = 0;
      supersededSinceCompaction = 0;
    }
  };
}
