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

// The operands that are no operation: the service's `Query.$expr` takes none of them.
const OPERAND_ONLY = ['$literal', '$getField', '$convert'];

function bad(message: string): HttpError {
  return new HttpError(422, [{ loc: ['body', 'query'], msg: message, type: 'value_error' }]);
}

/** What a query reads: the record, and which of its dot paths are JSON the service reads as `JSON_VALUE` text. */
interface Scope {
  record: unknown;
  jsonPath: (path: string) => boolean;
}

/** The dot path of a `$getField` operand that reads JSON, else undefined. */
function jsonField(op: unknown, scope: Scope): string | undefined {
  const path = (op as { $getField?: unknown } | null)?.$getField;
  return typeof path === 'string' && scope.jsonPath(path) ? path : undefined;
}

/**
 * A JSON value as the service's `JSON_VALUE` reads it: a string as it is, `true`/`false`, a number as
 * written, an object or list as minified JSON, and a missing value or JSON null as `''` (never null).
 */
export function jsonText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

type Cast = 'int' | 'double' | 'bool' | 'string';

/** ClickHouse's `toInt64OrNull`, `toFloat64OrNull` and the bool read of a text, as the service casts JSON text. */
function castText(text: string | null, cast: Cast | undefined): unknown {
  if (text === null || cast === undefined || cast === 'string') return text;
  const trimmed = text.trim();
  if (cast === 'int') return /^[+-]?\d+$/.test(trimmed) ? Number(trimmed) : null;
  if (cast === 'double') return trimmed === '' || Number.isNaN(Number(trimmed)) ? null : Number(trimmed);
  if (text === 'true' || text === 'false') return text === 'true' ? 1 : 0;
  const n = /^[+-]?\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  return n >= 0 && n <= 255 ? n : null;
}

/**
 * The cast the service gives a JSON field compared with this operand (`infer_literal_filter_cast`): a bool,
 * integer or other number literal casts the field to match; anything else leaves it text.
 */
function literalCast(op: unknown): Cast | undefined {
  if (op === null || typeof op !== 'object' || !('$literal' in op)) return undefined;
  const value = (op as { $literal: unknown }).$literal;
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'double';
  return undefined;
}

/** One literal list's shared cast: all of one kind, int and double together as double; else none. */
function sharedCast(ops: unknown[]): Cast | undefined {
  const casts = new Set(ops.map(literalCast));
  if (casts.has(undefined) || casts.size === 0) return undefined;
  if (casts.size === 2 && casts.has('int') && casts.has('double')) return 'double';
  return casts.size === 1 ? [...casts][0] : undefined;
}

/**
 * ClickHouse's comparison, as the service runs it on a JSON field: null when either side is null (so `$not`
 * of it is null too, and the call is left out), a bool as 0/1, and a number against text no match at all.
 */
function chCompare(a: unknown, b: unknown, op: string): boolean | null {
  if (a === null || a === undefined || b === null || b === undefined) return null;
  const [x, y] = [typeof a === 'boolean' ? Number(a) : a, typeof b === 'boolean' ? Number(b) : b];
  if ((typeof x === 'number') !== (typeof y === 'number')) return null;
  if (typeof x !== 'number' && typeof x !== 'string') return null;
  return compareBy(op, x as number | string, y as number | string);
}

/** `a op b` for `$eq`, `$gt`, `$gte`, `$lt` or `$lte`. */
function compareBy<S extends Scalar>(op: string, a: S, b: S): boolean {
  if (op === '$eq') return a === b;
  if (op === '$gt') return a > b;
  if (op === '$gte') return a >= b;
  return op === '$lt' ? a < b : a <= b;
}

/** An operand's value, a JSON field's text cast as `cast` says. */
function castOperand(op: unknown, scope: Scope, cast: Cast | undefined): unknown {
  const value = evalOperand(op, scope);
  return jsonField(op, scope) !== undefined ? castText(value as string, cast) : value;
}

/**
 * A comparison with a JSON field on either side, as the service compiles it: the field is text, cast to
 * match a literal on the other side; `$eq` with a null literal asks for SQL NULL, which a JSON field never is.
 */
function jsonComparison(name: string, [lhs, rhs]: unknown[], scope: Scope): boolean | null {
  if (name === '$eq' && rhs !== null && typeof rhs === 'object' && (rhs as { $literal?: unknown }).$literal === null) return false;
  return chCompare(castOperand(lhs, scope, literalCast(rhs)), castOperand(rhs, scope, literalCast(lhs)), name);
}

function evalOperand(op: unknown, scope: Scope): unknown {
  const record = scope.record;
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
      return scope.jsonPath(arg) ? jsonText(getPath(record, arg)) : (getPath(record, arg) ?? null);
    case '$convert': {
      const { input, to } = (arg ?? {}) as { input?: unknown; to?: unknown };
      const path = jsonField(input, scope);
      if (path === undefined) return convert(evalOperand(input, scope), String(to));
      // A JSON field exists when its path is there and not JSON null; any other cast reads its text.
      if (to === 'exists') return convert(getPath(record, path), 'exists');
      if (to !== 'int' && to !== 'double' && to !== 'bool' && to !== 'string') return convert(null, String(to));
      return castText(jsonText(getPath(record, path)), to);
    }
    // An empty `$and` or `$or` is the service's ValueError("Empty AND operation"), a 400.
    case '$and':
      if (!Array.isArray(arg)) throw bad('$and takes a list');
      if (arg.length === 0) throw new HttpError(400, 'Empty AND operation');
      return arg.every((a) => Boolean(evalOperand(a, scope)));
    case '$or':
      if (!Array.isArray(arg)) throw bad('$or takes a list');
      if (arg.length === 0) throw new HttpError(400, 'Empty OR operation');
      return arg.some((a) => Boolean(evalOperand(a, scope)));
    case '$not': {
      // SQL's NOT: of an unknown (a null comparison) it is unknown, which no call passes.
      const value = evalOperand(args(1)[0], scope);
      return value === null ? null : !value;
    }
    case '$eq': {
      const pair = args(2);
      if (pair.some((x) => jsonField(x, scope) !== undefined)) return jsonComparison(name, pair, scope);
      const [a, b] = pair.map((x) => evalOperand(x, scope));
      return same(a, b);
    }
    // `$lt` and `$lte` are in the service's query language too (interface/query.py: LtOperation, LteOperation).
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      const pair = args(2);
      if (pair.some((x) => jsonField(x, scope) !== undefined)) return jsonComparison(name, pair, scope);
      const [a, b] = pair.map((x) => evalOperand(x, scope));
      if (a === null || b === null) return false;
      const [x, y] = comparable(a, b) as [Scalar, Scalar];
      return compareBy(name, x, y);
    }
    case '$in': {
      const [left, list] = args(2);
      if (!Array.isArray(list)) throw bad('$in takes an operand and a list of operands');
      if (jsonField(left, scope) !== undefined) {
        const value = castOperand(left, scope, sharedCast(list));
        return value === null ? null : list.some((x) => chCompare(value, evalOperand(x, scope), '$eq') === true);
      }
      const value = evalOperand(left, scope);
      return list.some((x) => same(value, evalOperand(x, scope)));
    }
    case '$contains': {
      const { input, substr, case_insensitive } = (arg ?? {}) as Record<string, unknown>;
      const hay = String(evalOperand(input, scope) ?? '');
      const needle = String(evalOperand(substr, scope) ?? '');
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
export function matchesQuery(query: unknown, record: unknown, jsonPath: (path: string) => boolean = () => false): boolean {
  if (query === undefined || query === null) return true;
  if (typeof query !== 'object' || !('$expr' in (query as object))) throw bad('query must be {"$expr": ...}');
  const expr = (query as { $expr: unknown }).$expr;
  // `$expr` is an Operation in the service's model: a bare `$literal`, `$getField` or `$convert` is no query.
  if (expr !== null && typeof expr === 'object' && OPERAND_ONLY.some((key) => key in expr)) throw bad('$expr must be an operation such as $eq or $and');
  return Boolean(evalOperand(expr, { record, jsonPath }));
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
