import type { SortBy, UnknownShape } from './common.js';

/** An annotation queue: calls waiting for human review against a set of scorers. */
export interface AnnotationQueueSchema {
  id: string;
  project_id: string;
  name: string;
  description: string;
  scorer_refs: string[];
  created_at: string;
  created_by: string;
  updated_at: string;
  deleted_at?: string | null;
}

/** Review state of a queue item. */
export type AnnotationState = 'unstarted' | 'in_progress' | 'completed' | 'skipped';

/** One call in a queue. */
export interface AnnotationQueueItemSchema {
  id: string;
  project_id: string;
  queue_id: string;
  call_id: string;
  call_started_at: string;
  call_ended_at?: string | null;
  call_op_name: string;
  call_trace_id: string;
  display_fields: string[];
  added_by?: string | null;
  annotation_state: AnnotationState;
  annotator_user_id?: string | null;
  created_at: string;
  created_by: string;
  updated_at: string;
  deleted_at?: string | null;
  position_in_queue?: number | null;
}

/** POST /annotation_queues */
export interface AnnotationQueueCreateReq {
  project_id: string;
  name: string;
  /** Default empty. */
  description?: string | undefined;
  scorer_refs: string[];
}
/** The answer of POST /annotation_queues. */
export interface AnnotationQueueCreateRes {
  id: string;
}

/** POST /annotation_queues/query (JSONL of {@link AnnotationQueueSchema}) */
export interface AnnotationQueuesQueryReq {
  project_id: string;
  /** Case-insensitive substring of the queue name. */
  name?: string | undefined;
  sort_by?: SortBy[] | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}

/** POST /annotation_queues/stats */
export interface AnnotationQueuesStatsReq {
  project_id: string;
  queue_ids: string[];
}
/** The answer of POST /annotation_queues/stats. */
export interface AnnotationQueuesStatsRes {
  stats: Array<{ queue_id: string; total_items: number; completed_items: number }>;
}

/** GET /annotation_queues/{queue_id}?project_id= (GET and the query-parameter form are UNVERIFIED) */
export interface AnnotationQueueReadRes {
  queue: AnnotationQueueSchema;
}

/** PUT /annotation_queues/{queue_id}: the body is the reference's guess (UNVERIFIED). */
export interface AnnotationQueueUpdateReq {
  project_id: string;
  name?: string | undefined;
  description?: string | undefined;
  scorer_refs?: string[] | undefined;
}
/** Probably `{ queue }` (UNVERIFIED), so open. */
export type AnnotationQueueUpdateRes = Partial<AnnotationQueueReadRes> & UnknownShape;

/** DELETE /annotation_queues/{queue_id}?project_id=: the response is not shown (UNVERIFIED). */
export type AnnotationQueueDeleteRes = UnknownShape;

/** POST /annotation_queues/{queue_id}/items */
export interface AnnotationQueueAddCallsReq {
  project_id: string;
  call_ids: string[];
  /** Which call fields the reviewer sees, as dot paths. */
  display_fields: string[];
}
/** The answer of POST /annotation_queues/{queue_id}/items. */
export interface AnnotationQueueAddCallsRes {
  added_count: number;
  duplicates: number;
}

/** POST /annotation_queues/{queue_id}/items/query */
export interface AnnotationQueueItemsQueryReq {
  project_id: string;
  filter?: {
    id?: string | undefined;
    call_id?: string | undefined;
    call_op_name?: string | undefined;
    call_trace_id?: string | undefined;
    added_by?: string | undefined;
    annotation_states?: AnnotationState[] | undefined;
  } | undefined;
  sort_by?: SortBy[] | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
  include_position?: boolean | undefined;
}
/** The answer of POST /annotation_queues/{queue_id}/items/query. */
export interface AnnotationQueueItemsQueryRes {
  items: AnnotationQueueItemSchema[];
}

/** POST /annotation_queues/{queue_id}/items/{item_id}/progress: the body is the reference's guess (UNVERIFIED). */
export interface AnnotationQueueItemProgressReq {
  project_id: string;
  annotation_state: AnnotationState;
  [key: string]: unknown;
}
/** Not shown (UNVERIFIED). */
export type AnnotationQueueItemProgressRes = UnknownShape;
