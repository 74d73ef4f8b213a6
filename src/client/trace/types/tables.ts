import type { SortBy } from './common.js';

/** One row of a table. */
export interface TableRowSchema {
  digest: string;
  val: unknown;
  original_index?: number | null;
}

/** POST /table/create */
export interface TableCreateReq {
  table: { project_id: string; rows: Array<Record<string, unknown>> };
}
/** The answer of POST /table/create. */
export interface TableCreateRes {
  digest: string;
  row_digests: string[];
}

/** POST /table/create_from_digests */
export interface TableCreateFromDigestsReq {
  project_id: string;
  row_digests: string[];
}
/** The answer of POST /table/create_from_digests. */
export interface TableCreateFromDigestsRes {
  digest: string;
}

/** One change of {@link TableUpdateReq}. */
export type TableUpdateSpec =
  | { append: { row: Record<string, unknown> } }
  | { pop: { index: number } }
  | { insert: { index: number; row: Record<string, unknown> } };

/** POST /table/update: applies the updates in order to `base_digest`, making a new table. */
export interface TableUpdateReq {
  project_id: string;
  base_digest: string;
  updates: TableUpdateSpec[];
}
/** The answer of POST /table/update. */
export interface TableUpdateRes {
  digest: string;
  updated_row_digests: string[];
}

/** POST /table/query and POST /table/query_stream */
export interface TableQueryReq {
  project_id: string;
  digest: string;
  filter?: { row_digests?: string[] | undefined } | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
  sort_by?: SortBy[] | undefined;
}
/** The answer of POST /table/query. */
export interface TableQueryRes {
  rows: TableRowSchema[];
}

/** POST /table/query_stats */
export interface TableQueryStatsReq {
  project_id: string;
  digest: string;
}
/** The answer of POST /table/query_stats. */
export interface TableQueryStatsRes {
  count: number;
}

/** POST /table/query_stats_batch */
export interface TableQueryStatsBatchReq {
  project_id: string;
  digests?: string[] | undefined;
  include_storage_size?: boolean | undefined;
}
/** The answer of POST /table/query_stats_batch. */
export interface TableQueryStatsBatchRes {
  tables: Array<{ count: number; digest: string; storage_size_bytes?: number | null }>;
}
