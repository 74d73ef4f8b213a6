import type { DevRecord } from './records.js';
import type { CollectionStore } from './trace/collection-store.js';
import type { TraceStore } from './trace/store.js';

/** What the route families share: the trace store and the record collections, one way to write to them, and the log. */
export interface DevContext {
  readonly store: TraceStore;
  /** The plain record collections (costs, annotation queues, evaluation runs…); written through `Collection`. */
  readonly collections: CollectionStore;
  /** Applies a record (trace or training), appends it to the `--data` log, and reports any eviction it caused. */
  write(record: DevRecord): void;
  /** One line for the operator (eviction notices, replay summaries). */
  log(line: string): void;
}
