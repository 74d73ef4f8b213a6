import type { DateTimeInput, EmptyRes, JsonObject, Query, SortBy, UnknownShape } from './common.js';

/** Feedback as written: a reaction, a note, or a custom payload attached to a call or object ref. */
export interface FeedbackCreateReq {
  /** Client-supplied id (newer servers). */
  id?: string | undefined;
  project_id: string;
  /** Ref of the call or object the feedback is about. */
  weave_ref: string;
  creator?: string | null | undefined;
  /** E.g. `custom`; the names of the built-in types are UNVERIFIED. */
  feedback_type: string;
  payload: JsonObject;
  annotation_ref?: string | undefined;
  runnable_ref?: string | undefined;
  call_ref?: string | undefined;
  trigger_ref?: string | undefined;
}
/** POST /feedback/create */
export interface FeedbackCreateRes {
  id: string;
  created_at: string;
  wb_user_id: string;
  payload: JsonObject;
}

/** Feedback as read back. */
export interface Feedback extends Omit<FeedbackCreateReq, 'id'> {
  id: string;
  created_at: string;
  wb_user_id?: string;
}

/** POST /feedback/batch/create */
export interface FeedbackCreateBatchReq {
  batch: FeedbackCreateReq[];
}
/** The answer of POST /feedback/batch/create. */
export interface FeedbackCreateBatchRes {
  res: FeedbackCreateRes[];
}

/** POST /feedback/query: returns only the requested `fields` (e.g. `payload.note`). */
export interface FeedbackQueryReq {
  project_id: string;
  fields?: string[] | undefined;
  query?: Query | undefined;
  sort_by?: SortBy[] | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}
/** The answer of POST /feedback/query. */
export interface FeedbackQueryRes {
  result: JsonObject[];
}

/** POST /feedback/replace: a create that replaces `feedback_id`. */
export interface FeedbackReplaceReq extends FeedbackCreateReq {
  feedback_id: string;
}
/** The answer of POST /feedback/replace. */
export type FeedbackReplaceRes = FeedbackCreateRes;

/**
 * POST /feedback/purge: deletes the feedback `query` names by id, the only purge the service takes: an `$eq` of `id`
 * with a string literal, or an `$or` of them (any other query is a 400).
 */
export interface FeedbackPurgeReq {
  project_id: string;
  query: Query;
}
/** The answer of POST /feedback/purge. */
export type FeedbackPurgeRes = EmptyRes;

/**
 * POST /feedback/stats. Only `project_id`, `start` and `end` are known; the rest (a feedback-type filter,
 * granularity, metric specs) is UNVERIFIED, so further fields are allowed.
 */
export interface FeedbackStatsReq {
  project_id: string;
  start: DateTimeInput;
  end?: DateTimeInput;
  [key: string]: unknown;
}
/** Time buckets; the shape is UNVERIFIED. */
export type FeedbackStatsRes = UnknownShape;

/** POST /feedback/payload_schema: no source shows its shape. */
export type FeedbackPayloadSchemaReq = { project_id: string } & UnknownShape;
/** POST /feedback/payload_schema: no source shows its shape. */
export type FeedbackPayloadSchemaRes = UnknownShape;
