import type { DateTimeInput, SortBy } from './common.js';

/** POST /threads/stream_query (JSONL of {@link ThreadSchema}) */
export interface ThreadsQueryReq {
  project_id: string;
  filter?: { after_datetime?: DateTimeInput | undefined; before_datetime?: DateTimeInput | undefined; thread_ids?: string[] | undefined } | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
  /** Sortable: `thread_id`, `turn_count`, `start_time`, `last_updated`, `p50_turn_duration_ms`, `p99_turn_duration_ms`. */
  sort_by?: SortBy[] | undefined;
}

/** A conversation thread: its turns are the calls that share a `thread_id`. */
export interface ThreadSchema {
  thread_id: string;
  turn_count: number;
  start_time: string;
  last_updated: string;
  first_turn_id?: string | null;
  last_turn_id?: string | null;
  p50_turn_duration_ms?: number | null;
  p99_turn_duration_ms?: number | null;
}
