import { WeftConfigError } from '../../config/errors.js';

/**
 * Checks a list of ids that says what a DELETE removes, and returns it. A query string cannot carry an empty
 * list (the parameter is just absent), and to the service an absent filter means "all of them": sent as is,
 * `[]`, "delete none", would delete everything. So it is refused, naming the parameter, before any request.
 *
 * @example
 * query: { score_ids: deleteIds('score_ids', params.score_ids) }
 */
export function deleteIds(name: string, ids: readonly string[]): readonly string[] {
  if (!Array.isArray(ids) || ids.length === 0) {
    throw new WeftConfigError(
      name,
      undefined,
      `weft: \`${name}\` must list at least one id, got ${Array.isArray(ids) ? '[]' : String(ids)}; an empty list would reach the service as no filter, which deletes everything.`,
    );
  }
  return ids;
}
