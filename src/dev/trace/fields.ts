import type { FieldSpec } from '../validate.js';

/** Field specs that most request bodies of the trace service share, written once. */
const str = { type: 'string' } as const;
export const reqStr = { type: 'string', required: true } as const;
export const optStr = { type: 'string', nullable: true } as const;
export const optInt = { type: 'integer', nullable: true } as const;
export const optBool = { type: 'boolean', nullable: true } as const;
export const strList = { type: 'array', items: str } as const;

/** An optional strict object, such as a query's `filter`. */
export const optObject = (fields: Record<string, FieldSpec>): FieldSpec => ({ type: 'object', nullable: true, strict: true, fields });

/** `CallsFilter`: every list matches any of its values. */
export const CALLS_FILTER: FieldSpec = optObject({
  op_names: strList,
  input_refs: strList,
  output_refs: strList,
  parent_ids: strList,
  trace_ids: strList,
  call_ids: strList,
  thread_ids: strList,
  turn_ids: strList,
  wb_user_ids: strList,
  wb_run_ids: strList,
  trace_roots_only: optBool,
});

/** The directions a `sort_by` item takes. */
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;

/**
 * `sort_by`: a list of `{field, direction}`, the service's `SortBy` (strict, `direction: Literal["asc", "desc"]`).
 * Every route that sorts takes it from here, so that all of them refuse an unknown key or direction alike.
 */
export const SORT_BY: FieldSpec = {
  type: 'array',
  nullable: true,
  items: { type: 'object', strict: true, fields: { field: reqStr, direction: { type: 'literal', allowed: SORT_DIRECTIONS, required: true } } },
};

/** The paging and order fields of a query body. */
export const PAGING: Record<string, FieldSpec> = { sort_by: SORT_BY, limit: optInt, offset: optInt };

/** `{field, direction}` as the routes read it. */
export interface SortBy {
  field: string;
  direction: (typeof SORT_DIRECTIONS)[number];
}

/** Paging and order as the routes read them. */
export interface Paging {
  sort_by?: SortBy[] | null;
  limit?: number | null;
  offset?: number | null;
}
