/**
 * The trace service's wire shapes, as far as `weft dev` serves them (reference trace-service.md §2).
 * Field names are the wire's snake_case.
 */

/** Token usage of one model within a call (`summary.usage[model]`). */
export interface LLMUsage {
  prompt_tokens?: number;
  input_tokens?: number;
  completion_tokens?: number;
  output_tokens?: number;
  requests?: number;
  total_tokens?: number;
}

/** The status the service computes for a call. */
export type TraceStatus = 'success' | 'error' | 'running' | 'descendant_error';

/** A call's summary as stored: usage plus any keys the writer sent. */
export interface SummaryMap {
  usage?: Record<string, LLMUsage>;
  weave?: { status?: TraceStatus; trace_name?: string; latency_ms?: number; [key: string]: unknown };
  [key: string]: unknown;
}

/** `StartedCallSchemaForInsert`: the start half of a call. */
export interface StartedCall {
  project_id: string;
  id?: string;
  op_name: string;
  display_name?: string | null;
  trace_id?: string;
  parent_id?: string | null;
  thread_id?: string | null;
  turn_id?: string | null;
  started_at: string;
  attributes: Record<string, unknown>;
  inputs: Record<string, unknown>;
  otel_dump?: Record<string, unknown> | null;
  wb_user_id?: string | null;
  wb_run_id?: string | null;
  wb_run_step?: number | null;
}

/** `EndedCallSchemaForInsert`: the end half of a call. */
export interface EndedCall {
  project_id: string;
  id: string;
  ended_at: string;
  summary: SummaryMap;
  exception?: string | null;
  output?: unknown;
  wb_run_step_end?: number | null;
}

/** `CallSchema`: a call as reads and queries return it. */
export interface CallSchema {
  id: string;
  project_id: string;
  op_name: string;
  display_name?: string | null;
  trace_id: string;
  parent_id?: string | null;
  thread_id?: string | null;
  turn_id?: string | null;
  started_at: string;
  ended_at?: string | null;
  attributes: Record<string, unknown>;
  inputs: Record<string, unknown>;
  output?: unknown;
  exception?: string | null;
  summary?: SummaryMap;
  wb_user_id?: string | null;
  wb_run_id?: string | null;
  wb_run_step?: number | null;
  wb_run_step_end?: number | null;
  deleted_at?: string | null;
  storage_size_bytes?: number | null;
  total_storage_size_bytes?: number | null;
}

/** `CallsFilter`. */
export interface CallsFilter {
  op_names?: string[];
  input_refs?: string[];
  output_refs?: string[];
  parent_ids?: string[];
  trace_ids?: string[];
  call_ids?: string[];
  thread_ids?: string[];
  turn_ids?: string[];
  wb_user_ids?: string[];
  wb_run_ids?: string[];
  trace_roots_only?: boolean;
}

/** `SortBy`: a field (dot paths allowed) and a direction. */
export interface SortBy {
  field: string;
  direction: 'asc' | 'desc';
}

/** `ObjSchema`: one version of an object. */
export interface ObjSchema {
  project_id: string;
  object_id: string;
  created_at: string;
  deleted_at: string | null;
  digest: string;
  version_index: number;
  is_latest: number;
  kind: 'op' | 'object';
  base_object_class: string | null;
  leaf_object_class: string | null;
  val: unknown;
  wb_user_id: string | null;
  size_bytes: number | null;
}

/** `TableRowSchema`. */
export interface TableRow {
  digest: string;
  val: unknown;
  original_index?: number;
}

/** A stored table: its rows in order. */
export interface StoredTable {
  project_id: string;
  digest: string;
  /**
   * The rows in order. A row made by digest alone (`/table/create_from_digests` naming a row never stored)
   * has no `val`: the service keeps its digest and reads the row whenever one of that digest is stored.
   */
  rows: { digest: string; val?: unknown }[];
}

/** `Feedback`. */
export interface Feedback {
  id: string;
  project_id: string;
  weave_ref: string;
  creator: string | null;
  feedback_type: string;
  payload: Record<string, unknown>;
  annotation_ref: string | null;
  runnable_ref: string | null;
  call_ref: string | null;
  trigger_ref: string | null;
  wb_user_id: string | null;
  created_at: string;
}

/** A stored file. */
export interface StoredFile {
  project_id: string;
  digest: string;
  name: string;
  content: Buffer;
}
