/**
 * One change to a record collection. Like the trace store's mutations, every write is one record, applied in
 * memory and appended to the `--data` log, so that replaying the log rebuilds the same collections.
 */
export type CollectionMutation =
  | { kind: 'record_put'; collection: string; project_id: string; id: string; record: Record<string, unknown> }
  | { kind: 'record_delete'; collection: string; project_id: string; ids: string[] };

const KINDS = new Set<string>(['record_put', 'record_delete']);

/** Whether a record of the data file belongs to the record collections. */
export function isCollectionMutation(record: { kind: string }): record is CollectionMutation {
  return KINDS.has(record.kind);
}

const key = (a: string, b: string) => `${a}\u0000${b}`;

/** How a {@link CollectionStore} is bounded. */
export interface CollectionBounds {
  /** The most records one collection keeps, across projects; past it, the oldest go. */
  maxRecords: number;
  /** Collections kept whole whatever their size: those whose records belong to something never evicted. */
  unbounded: readonly string[];
}

/**
 * Plain JSON records by collection, project and id (costs, annotation queues, evaluation runs…): the
 * resources that need nothing but put, get, list and delete. Insertion-ordered, so a list is oldest first;
 * replacing a record keeps its place. Like the trace store's calls, each collection is bounded: past
 * `maxRecords` records (across projects) the oldest is evicted, except in the `unbounded` collections.
 */
export class CollectionStore {
  // By collection and project, then id: what reads look up.
  private readonly collections = new Map<string, Map<string, Record<string, unknown>>>();
  // By collection, every record's project and id in write order across projects: the first is the next to
  // evict. Snapshots follow it too, so that a compacted log evicts the same records as the original.
  private readonly order = new Map<string, Map<string, [projectId: string, id: string]>>();
  private readonly unbounded: ReadonlySet<string>;

  constructor(private readonly bounds: CollectionBounds) {
    this.unbounded = new Set(bounds.unbounded);
  }

  /** Applies a mutation and returns how many records it pushed out. */
  apply(mutation: CollectionMutation): number {
    const records = this.records(mutation.collection, mutation.project_id);
    const order = this.orderOf(mutation.collection);
    switch (mutation.kind) {
      case 'record_put':
        records.set(mutation.id, mutation.record);
        order.set(key(mutation.project_id, mutation.id), [mutation.project_id, mutation.id]);
        return this.evict(mutation.collection, order);
      case 'record_delete':
        for (const id of mutation.ids) {
          records.delete(id);
          order.delete(key(mutation.project_id, id));
        }
        return 0;
      default:
        throw new TypeError(`unknown collection record kind ${JSON.stringify((mutation as { kind?: unknown })?.kind)}`);
    }
  }

  /** One record, or undefined. */
  get(collection: string, projectId: string, id: string): Record<string, unknown> | undefined {
    return this.collections.get(key(collection, projectId))?.get(id);
  }

  /** Every record of a collection in a project, oldest first. */
  list(collection: string, projectId: string): Record<string, unknown>[] {
    return [...(this.collections.get(key(collection, projectId))?.values() ?? [])];
  }

  /** The mutations that rebuild every collection, for compacting the log. */
  *snapshot(): Iterable<CollectionMutation> {
    for (const [collection, order] of this.order) {
      for (const [project_id, id] of order.values()) {
        const record = this.get(collection, project_id, id);
        if (record) yield { kind: 'record_put', collection, project_id, id, record };
      }
    }
  }

  private evict(collection: string, order: Map<string, [string, string]>): number {
    if (this.unbounded.has(collection)) return 0;
    let evicted = 0;
    for (const [oldest, [projectId, id]] of order) {
      if (order.size <= this.bounds.maxRecords) break;
      this.collections.get(key(collection, projectId))?.delete(id);
      order.delete(oldest);
      evicted++;
    }
    return evicted;
  }

  private records(collection: string, projectId: string): Map<string, Record<string, unknown>> {
    if (typeof collection !== 'string' || typeof projectId !== 'string') {
      throw new TypeError('a collection record needs a collection and a project_id');
    }
    let records = this.collections.get(key(collection, projectId));
    if (!records) {
      records = new Map();
      this.collections.set(key(collection, projectId), records);
    }
    return records;
  }

  private orderOf(collection: string): Map<string, [string, string]> {
    let order = this.order.get(collection);
    if (!order) {
      order = new Map();
      this.order.set(collection, order);
    }
    return order;
  }
}
