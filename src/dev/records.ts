import { type CollectionMutation, type CollectionStore, isCollectionMutation } from './trace/collection-store.js';
import type { Evicted, Mutation, TraceStore } from './trace/store.js';
import { isTrainingMutation, type TrainingMutation, type TrainingStore } from './training/store.js';

/** One line of the `--data` log: a change to the trace data (calls and objects, or a record collection) or to the training state. */
export type DevRecord = Mutation | CollectionMutation | TrainingMutation;

/** The in-memory state that the `--data` log rebuilds. */
export interface DevStores {
  readonly trace: TraceStore;
  readonly training: TrainingStore;
  readonly collections: CollectionStore;
}

/**
 * Applies one record to the store it belongs to and returns what it pushed out of the bounded stores. Live
 * writes and replay both come through here, so that replaying the log rebuilds exactly what the writes built.
 */
export function applyRecord(stores: DevStores, record: DevRecord): Evicted {
  if (isTrainingMutation(record)) {
    stores.training.apply(record);
    return { traces: 0, records: 0 };
  }
  if (isCollectionMutation(record)) return { traces: 0, records: stores.collections.apply(record) };
  return stores.trace.apply(record);
}

/** The records that rebuild the whole current state, for compacting the log. */
export function* snapshotRecords(stores: DevStores): Iterable<DevRecord> {
  yield* stores.trace.snapshot();
  yield* stores.training.snapshot();
  yield* stores.collections.snapshot();
}
