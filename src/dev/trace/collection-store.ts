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

const key = (collection: string, projectId: string) => `${collection}\u0000${projectId}`;

/**
 * Plain JSON records by collection, project and id (costs, annotation queues, evaluation runs…): the
 * resources that need nothing but put, get, list and delete. Insertion-ordered, so a list is oldest first;
 * replacing a record keeps its place.
 */
export class CollectionStore {
  private readonly collections = new Map<string, Map<string, Record<string, unknown>>>();

  /** Applies a mutation. */
  apply(mutation: CollectionMutation): void {
    const records = this.records(mutation.collection, mutation.project_id);
    switch (mutation.kind) {
      case 'record_put':
        records.set(mutation.id, mutation.record);
        return;
      case 'record_delete':
        for (const id of mutation.ids) records.delete(id);
        return;
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
    for (const [k, records] of this.collections) {
      const [collection, project_id] = k.split('\u0000') as [string, string];
      for (const [id, record] of records) yield { kind: 'record_put', collection, project_id, id, record };
    }
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
}
