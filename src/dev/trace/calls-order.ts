import { callJsonPath } from './call-json-paths.js';
import { getPath, jsonText } from './query-expr.js';
import { timestampMicros } from './timestamps.js';
import type { CallSchema, SortBy } from './types.js';

type Key = bigint | number | string | null;

/**
 * A plain column's sort value: a datetime column's (`started_at`, `ended_at`) as its instant, anything else as it is;
 * null when unset. Only a datetime column is read as one: a text column (`display_name`) is text to the service, and
 * a `'1970-01-01T00:00:09Z'` among other names read as an instant is no total order (it came before `'5'` by its text
 * and after it, through a later instant, by its value), so a subset of calls came in another order than the whole.
 */
function plainKey(value: unknown, field: string): Key {
  if (value === null || value === undefined) return null;
  const micros = field.endsWith('_at') ? timestampMicros(value) : undefined;
  if (micros !== undefined) return micros;
  return typeof value === 'number' || typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The sort keys of one `sort_by` term, as the service's query builder orders: a JSON path sorts first by
 * whether the value exists (existing first, whatever the direction), then as a number where it reads as one,
 * then as text; a plain column by its value. Each key's null sorts last in either direction (ClickHouse's
 * `NULLS LAST`), so a running call's `ended_at` or latency, or a call without the path, comes after the rest.
 */
function keys(call: CallSchema, field: string, jsonPath: (path: string) => boolean): { key: Key; directed: boolean }[] {
  const value = getPath(call, field);
  if (!jsonPath(field)) return [{ key: plainKey(value, field), directed: true }];
  const exists = value !== null && value !== undefined;
  const text = jsonText(value);
  const number = text.trim() === '' ? Number.NaN : Number(text);
  return [
    { key: exists ? 0 : 1, directed: false },
    { key: Number.isNaN(number) ? null : number, directed: true },
    { key: text, directed: true },
  ];
}

function compareKeys(a: Key, b: Key): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  // Numbers (and instants) before text, each compared as what it is: compared as text, a datetime kept as sent (a year
  // past 9999 or before 0) fell between instants whose text and values disagree (`-1000000` and `-3000000`), no total order.
  const [aText, bText] = [typeof a === 'string', typeof b === 'string'];
  if (aText !== bText) return aText ? 1 : -1;
  return a < b ? -1 : 1;
}

/**
 * Calls in the order of `sortBy` (stable), the service's way; see {@link keys}. `jsonPath` tells the fields
 * read as JSON_VALUE text (by default the call's stored JSON).
 */
export function sortCalls(calls: CallSchema[], sortBy: SortBy[], jsonPath: (path: string) => boolean = callJsonPath): CallSchema[] {
  const keyed = calls.map((call) => ({ call, keys: sortBy.map((s) => keys(call, s.field, jsonPath)) }));
  keyed.sort((x, y) => {
    for (let t = 0; t < sortBy.length; t++) {
      const [xs, ys] = [x.keys[t]!, y.keys[t]!];
      for (let k = 0; k < xs.length; k++) {
        const [a, b] = [xs[k]!.key, ys[k]!.key];
        // Nulls last whatever the direction: only a comparison of two values turns with it.
        const order = a === null || b === null ? compareKeys(a, b) : compareKeys(a, b) * (xs[k]!.directed && sortBy[t]!.direction === 'desc' ? -1 : 1);
        if (order !== 0) return order;
      }
    }
    return 0;
  });
  return keyed.map((k) => k.call);
}
