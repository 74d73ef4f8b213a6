import { HttpError } from '../http.js';
import { timestampMicros } from './timestamps.js';

/** Reads a dot path (`summary.weave.status`, `inputs.x.0`) from a record; numeric parts index arrays. */
export function getPath(record: unknown, path: string): unknown {
  let current: unknown = record;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function convert(value: unknown, to: string): unknown {
  switch (to) {
    case 'double':
    case 'int': {
      const n = Number(value);
      if (value === null || value === undefined || Number.isNaN(n)) return null;
      return to === 'int' ? Math.trunc(n) : n;
    }
    case 'string':
      return value === null || value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value);
    case 'bool':
      return Boolean(value);
    case 'exists':
      return value !== null && value !== undefined;
    default:
      throw new HttpError(422, [{ loc: ['body', 'query'], msg: `Unknown $convert target "${to}"`, type: 'value_error' }]);
  }
}

type Scalar = number | string | bigint;

// Two timestamps compare as the instants they name, whatever their zone or precision, as the service's
// datetimes do (`started_at > "2026-01-01T00:00:00Z"` holds for `2026-01-01T00:00:00.500000Z`); any other
// pair as it is.
function comparable(a: unknown, b: unknown): [unknown, unknown] {
  const ta = timestampMicros(a);
  const tb = timestampMicros(b);
  return ta !== undefined && tb !== undefined ? [ta, tb] : [a, b];
}

function same(a: unknown, b: unknown): boolean {
  const [x, y] = comparable(a, b);
  return typeof x === 'bigint' ? x === y : JSON.stringify(x) === JSON.stringify(y);
}

function bad(message: string): HttpError {
  return new HttpError(422, [{ loc: ['body', 'query'], msg: message, type: 'value_error' }]);
}

function evalOperand(op: unknown, record: unknown): unknown {
  if (op === null || typeof op !== 'object' || Array.isArray(op)) throw bad('Each operand must be an object');
  const entries = Object.entries(op as Record<string, unknown>);
  if (entries.length !== 1) throw bad('Each operand must have exactly one operator key');
  const [name, arg] = entries[0]!;
  const args = (n: number): unknown[] => {
    if (!Array.isArray(arg) || arg.length !== n) throw bad(`${name} takes a list of ${n} operands`);
    return arg;
  };
  switch (name) {
    case '$literal':
      return arg;
    case '$getField':
      if (typeof arg !== 'string') throw bad('$getField takes a dot path string');
      return getPath(record, arg) ?? null;
    case '$convert': {
      const { input, to } = (arg ?? {}) as { input?: unknown; to?: unknown };
      return convert(evalOperand(input, record), String(to));
    }
    case '$and':
      if (!Array.isArray(arg)) throw bad('$and takes a list');
      return arg.every((a) => Boolean(evalOperand(a, record)));
    case '$or':
      if (!Array.isArray(arg)) throw bad('$or takes a list');
      return arg.some((a) => Boolean(evalOperand(a, record)));
    case '$not':
      return !evalOperand(args(1)[0], record);
    case '$eq': {
      const [a, b] = args(2).map((x) => evalOperand(x, record));
      return same(a, b);
    }
    // `$lt` and `$lte` are in the service's query language too (interface/query.py: LtOperation, LteOperation).
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      const [a, b] = args(2).map((x) => evalOperand(x, record));
      if (a === null || b === null) return false;
      const [x, y] = comparable(a, b) as [Scalar, Scalar];
      if (name === '$gt') return x > y;
      if (name === '$gte') return x >= y;
      return name === '$lt' ? x < y : x <= y;
    }
    case '$in': {
      const [left, list] = args(2);
      if (!Array.isArray(list)) throw bad('$in takes an operand and a list of operands');
      const value = evalOperand(left, record);
      return list.some((x) => same(value, evalOperand(x, record)));
    }
    case '$contains': {
      const { input, substr, case_insensitive } = (arg ?? {}) as Record<string, unknown>;
      const hay = String(evalOperand(input, record) ?? '');
      const needle = String(evalOperand(substr, record) ?? '');
      return case_insensitive ? hay.toLowerCase().includes(needle.toLowerCase()) : hay.includes(needle);
    }
    default:
      throw bad(`Unknown query operator "${name}"`);
  }
}

/**
 * Evaluates the trace service's `Query` (`{"$expr": ...}`) against one record: `$and`, `$or`, `$not`,
 * `$eq`, `$gt`, `$gte`, `$lt`, `$lte`, `$in`, `$contains`, `$getField`, `$literal`, `$convert`.
 */
export function matchesQuery(query: unknown, record: unknown): boolean {
  if (query === undefined || query === null) return true;
  if (typeof query !== 'object' || !('$expr' in (query as object))) throw bad('query must be {"$expr": ...}');
  return Boolean(evalOperand((query as { $expr: unknown }).$expr, record));
}

/**
 * Sorts records by a list of `{field, direction}`; fields may be dot paths. Stable. The directions were checked
 * with the body (`SORT_BY` in fields.ts), so anything but `desc` is `asc`.
 */
export function sortRecords<T>(records: T[], sortBy: { field: string; direction: 'asc' | 'desc' }[] | undefined): T[] {
  if (!sortBy || sortBy.length === 0) return records;
  const compare = (a: unknown, b: unknown): number => {
    if (a === b) return 0;
    if (a === undefined || a === null) return -1;
    if (b === undefined || b === null) return 1;
    const [x, y] = comparable(a, b) as [Scalar, Scalar];
    return x === y ? 0 : x < y ? -1 : 1;
  };
  return [...records].sort((x, y) => {
    for (const { field, direction } of sortBy) {
      const order = compare(getPath(x, field), getPath(y, field));
      if (order !== 0) return direction === 'desc' ? -order : order;
    }
    return 0;
  });
}

/**
 * Keeps the requested `fields` of a record (all of it when none are asked for). Fields may be dot paths
 * (`payload.note`); each keeps its full name as the key, and a missing one comes back as null.
 */
export function pickFields(record: unknown, fields: string[] | null | undefined): Record<string, unknown> {
  if (!fields || fields.length === 0) return { ...(record as Record<string, unknown>) };
  return Object.fromEntries(fields.map((f) => [f, getPath(record, f) ?? null]));
}

/** Applies `offset` and `limit` (both optional, both at least 0; a 422 names the one that is not). */
export function page<T>(records: T[], limit: number | null | undefined, offset: number | null | undefined): T[] {
  for (const [name, value] of [['limit', limit], ['offset', offset]] as const) {
    if (value !== undefined && value !== null && value < 0) {
      throw new HttpError(422, [{ loc: ['body', name], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal' }]);
    }
  }
  const start = offset ?? 0;
  return limit === undefined || limit === null ? records.slice(start) : records.slice(start, start + limit);
}
