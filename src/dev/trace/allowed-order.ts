import type { SortBy } from './fields.js';

/**
 * The order of a listing whose service query sorts only by some fields (annotation_queues_query_builder,
 * `_make_sort_clause`): the `sort_by` terms on those fields, `fallback` when none is left. Terms on other
 * fields are skipped, not refused. The service breaks ties by id, a UUIDv7 whose random part orders records
 * made in one millisecond at random; the stable sort keeps them in the order they were made instead.
 */
export function allowedOrder(sortBy: SortBy[] | null | undefined, fields: readonly string[], fallback: SortBy[]): SortBy[] {
  const terms = (sortBy ?? []).filter((s) => fields.includes(s.field));
  return terms.length > 0 ? terms : fallback;
}
