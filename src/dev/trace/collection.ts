import type { DevContext } from '../context.js';
import { HttpError } from '../http.js';

/**
 * A typed view of one record collection: reads come from the store, writes go through the context's one
 * write path (so they reach the `--data` log too). Records are copied on the way in, so a caller that keeps
 * changing its object never changes the stored one behind the log's back.
 *
 * @example
 * const queues = new Collection<AnnotationQueue>(ctx, 'annotation_queues', 'Annotation queue');
 * queues.put(projectId, queue.id, queue);
 */
export class Collection<T extends object> {
  constructor(
    private readonly ctx: DevContext,
    private readonly name: string,
    /** How errors name one record, e.g. `Annotation queue`. */
    private readonly noun: string,
  ) {}

  /** Stores (or replaces) a record. */
  put(projectId: string, id: string, record: T): void {
    this.ctx.write({ kind: 'record_put', collection: this.name, project_id: projectId, id, record: structuredClone(record) as Record<string, unknown> });
  }

  /** One record, or undefined. */
  get(projectId: string, id: string): T | undefined {
    return this.ctx.collections.get(this.name, projectId, id) as T | undefined;
  }

  /** One record, or a 404 naming it. */
  need(projectId: string, id: string): T {
    const record = this.get(projectId, id);
    if (!record) throw new HttpError(404, `${this.noun} ${id} not found in project ${projectId}.`);
    return record;
  }

  /** Every record of a project, oldest first. */
  list(projectId: string): T[] {
    return this.ctx.collections.list(this.name, projectId) as T[];
  }

  /** Deletes the records with these ids and returns how many there were. */
  delete(projectId: string, ids: readonly string[]): number {
    const present = [...new Set(ids)].filter((id) => this.get(projectId, id) !== undefined);
    if (present.length > 0) this.ctx.write({ kind: 'record_delete', collection: this.name, project_id: projectId, ids: present });
    return present.length;
  }
}
