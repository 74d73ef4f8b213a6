/** Cursor pagination of the training service (reference §1.5). */

/**
 * One page of a list. Ask for the next page with `after` set to the id of the last item of this one, while
 * `has_more` is true.
 */
export interface Paginated<T> {
  object?: 'list';
  data: T[];
  /** Id of the first item; `""` on an empty page. */
  first_id?: string;
  /** Id of the last item; `""` on an empty page. */
  last_id?: string;
  has_more: boolean;
  [k: string]: unknown;
}

/** The query of a list endpoint. */
export interface PageParams {
  /** Id of the last item of the previous page; omitted for the first page. */
  after?: string | undefined;
  /** Items per page, 1 to 100. The service's default is 20. */
  limit?: number | undefined;
}

/** Sort order of checkpoints by step. */
export type SortOrder = 'asc' | 'desc';
