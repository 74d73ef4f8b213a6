import type { Mutation, TraceStore } from './trace/store.js';
import { isTrainingMutation, type TrainingMutation, type TrainingStore } from './training/store.js';

/** One line of the `--data` log: a change to the trace data or to the training state. */
export type DevRecord = Mutation | TrainingMutation;

/** The in-memory state that the `--data` log rebuilds. */
export interface DevStores {
  readonly trace: TraceStore;
  readonly training: TrainingStore;
}

/**
 * Applies one record to the store it belongs to and returns how many traces it pushed out. Live writes and
 * replay both come through here, so that replaying the log rebuilds exactly what the writes built.
 */
export function applyRecord(stores: DevStores, record: DevRecord): number {
  if (isTrainingMutation(record)) {
    stores.training.apply(record);
    return 0;
  }
  return stores.trace.apply(record);
}

/** The records that rebuild the whole current state, for compacting the log. */
export function* snapshotRecords(stores: DevStores): Iterable<DevRecord> {
  yield* stores.trace.snapshot();
  yield* stores.training.snapshot();
}
