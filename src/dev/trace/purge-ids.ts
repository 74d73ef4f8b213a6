import { HttpError } from '../http.js';

// One object with exactly one key, `key`: its value; else undefined.
function only(value: unknown, key: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === key ? (value as Record<string, unknown>)[key] : undefined;
}

/** The ids of `{"$eq": [{"$getField": "id"}, {"$literal": "<id>"}]}` (or `$in` with a list of such literals), else undefined. */
function idsNamed(expr: unknown, op: '$eq' | '$in'): string[] | undefined {
  const pair = only(expr, op);
  if (!Array.isArray(pair) || pair.length !== 2 || only(pair[0], '$getField') !== 'id') return undefined;
  const literals = op === '$eq' ? [pair[1]] : pair[1];
  if (!Array.isArray(literals)) return undefined;
  const ids = literals.map((l) => only(l, '$literal'));
  return ids.every((id) => typeof id === 'string') ? (ids as string[]) : undefined;
}

/**
 * The ids a purge names. For safety the service purges feedback and costs only by id (feedback.py
 * `validate_feedback_purge_req`, validation.py `validate_cost_purge_req`): one `$eq` of `id` with a string,
 * an `$or` of such, and for costs also an `$in` of `id` with strings. Anything else is its InvalidRequest,
 * a 400 with `message`, whatever the query would match.
 */
export function purgeIds(query: unknown, message: string, allowIn = false): string[] {
  const expr = (query as { $expr?: unknown } | null)?.$expr;
  const direct = idsNamed(expr, '$eq') ?? (allowIn ? idsNamed(expr, '$in') : undefined);
  if (direct) return direct;
  const either = only(expr, '$or');
  const ids = Array.isArray(either) && either.length > 0 ? either.map((e) => idsNamed(e, '$eq')) : [undefined];
  if (ids.some((id) => id === undefined)) throw new HttpError(400, message);
  return (ids as string[][]).flat();
}
