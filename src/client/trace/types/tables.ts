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
export interface TableCreateRes {
  digest: string;
  row_digests: string[];
}

/** POST /table/create_from_digests */
export interface TableCreateFromDigestsReq {
  project_id: string;
  row_digests: string[];
}
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
export interface TableUpdateRes {
  digest: string;
  updated_row_digests: string[];
}

/** POST /table/query and POST /table/query_stream */
export interface TableQueryReq {
  project_id: string;
  digest: string;
  filter?: { row_digests?: string[] };
  limit?: number;
  offset?: number;
  sort_by?: SortBy[];
}
export interface TableQueryRes {
  rows: TableRowSchema[];
}

/** POST /table/query_stats */
export interface TableQueryStatsReq {
  project_id: string;
  digest: string;
}
export interface TableQueryStatsRes {
  count: number;
}

/** POST /table/query_stats_batch */
export interface TableQueryStatsBatchReq {
  project_id: string;
  digests?: string[];
  include_storage_size?: boolean;
}
export interface TableQueryStatsBatchRes {
  tables: Array<{ count: number; digest: string; storage_size_bytes?: number | null }>;
}
