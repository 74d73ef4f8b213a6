import type { DevContext } from '../context.js';
import { HttpError } from '../http.js';
import { Collection } from './collection.js';

/** `AnnotationQueueSchema`. */
export interface AnnotationQueue {
  id: string;
  project_id: string;
  name: string;
  description: string;
  scorer_refs: string[];
  created_at: string;
  created_by: string;
  updated_at: string;
  deleted_at: string | null;
}

/** The review states of a queue item. */
export const ANNOTATION_STATES = ['unstarted', 'in_progress', 'completed', 'skipped'] as const;

/** `AnnotationQueueItemSchema`, as stored (the position is computed when listed). */
export interface AnnotationQueueItem {
  id: string;
  project_id: string;
  queue_id: string;
  call_id: string;
  call_started_at: string;
  call_ended_at: string | null;
  call_op_name: string;
  call_trace_id: string;
  display_fields: string[];
  added_by: string | null;
  annotation_state: (typeof ANNOTATION_STATES)[number];
  annotator_user_id: string | null;
  created_at: string;
  created_by: string;
  updated_at: string;
  deleted_at: string | null;
}

/** Who the dev service says made a change: it has no accounts, so one local user. */
export const DEV_USER = 'weft-dev';

/** The queues and their items, and the one rule both route families need: a deleted queue is gone. */
export class AnnotationQueueData {
  readonly queues: Collection<AnnotationQueue>;
  readonly items: Collection<AnnotationQueueItem>;

  constructor(ctx: DevContext) {
    this.queues = new Collection(ctx, 'annotation_queues', 'Annotation queue');
    this.items = new Collection(ctx, 'annotation_queue_items', 'Annotation queue item');
  }

  /** A queue that exists and is not deleted, or a 404. */
  liveQueue(projectId: string, queueId: string): AnnotationQueue {
    const queue = this.queues.get(projectId, queueId);
    if (!queue || queue.deleted_at) throw new HttpError(404, `Annotation queue ${queueId} not found in project ${projectId}.`);
    return queue;
  }

  /** The live items of a queue, in the order they were added. */
  queueItems(projectId: string, queueId: string): AnnotationQueueItem[] {
    return this.items.list(projectId).filter((i) => i.queue_id === queueId && !i.deleted_at);
  }
}
