import { HttpError } from '../http.js';
import { queryInt } from '../validate.js';
import type { Page } from './types.js';

/** Where a list request starts and how much it takes: `?after=` and `?limit=`. */
export interface Cursor {
  /** The id of the last item of the previous page; null for the first page. */
  after: string | null;
  limit: number;
}

/** Reads a list request's cursor: `?after=`, and `?limit=` from 1 to 100 (default 20), a 422 otherwise. */
export function readCursor(url: URL): Cursor {
  return { after: url.searchParams.get('after'), limit: queryInt(url, 'limit', 20, 1, 100) };
}

/**
 * A page of a list of items with ids, as the training service pages (`Paginated<T>`): the items after the one
 * whose id is `cursor.after`, at most `cursor.limit` of them. An `after` that names no item is a 422 naming `what`.
 */
export function paginate<T extends { id: string }>(items: readonly T[], cursor: Cursor, what: string): Page<T> {
  const { after, limit } = cursor;
  let start = 0;
  if (after) {
    const index = items.findIndex((item) => item.id === after);
    if (index === -1) {
      throw new HttpError(422, [{ loc: ['query', 'after'], msg: `"${after}" is not the id of a known ${what}`, type: 'value_error' }]);
    }
    start = index + 1;
  }
  const data = items.slice(start, start + limit);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? '',
    last_id: data.at(-1)?.id ?? '',
    has_more: start + limit < items.length,
  };
}
