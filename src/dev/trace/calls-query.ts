import { callJsonPath } from './call-json-paths.js';
import { sortCalls } from './calls-order.js';
import { matchesQuery, page } from './query-expr.js';
import { FeedbackFields } from './feedback-fields.js';
import type { CallSchema, CallsFilter, Feedback, SortBy } from './types.js';

function within(list: string[] | undefined, value: string | null | undefined): boolean {
  return list === undefined || (value !== null && value !== undefined && list.includes(value));
}

/**
 * Like {@link within}, but an empty list filters nothing: the service builds these conditions only for a
 * non-empty list (`if filter.call_ids: ...`), so `call_ids: []` selects every call, not none. Only
 * `thread_ids` and `turn_ids` are tested against `None`, so their empty list does select none.
 */
function withinUnlessEmpty(list: string[] | undefined, value: string | null | undefined): boolean {
  return list === undefined || list.length === 0 || within(list, value);
}

// How the Weave SDKs ask for every version of an op: its ref with `:*` in place of `:<digest>`.
const ANY_VERSION = ':*';

/** True when `opName` is one of `names`, exactly or, for a name ending in `:*`, as any version of that ref. */
function opNameIn(names: string[] | undefined, opName: string): boolean {
  if (names === undefined || names.length === 0) return true;
  return names.some((name) => (name.endsWith(ANY_VERSION) ? opName.startsWith(name.slice(0, -1)) : name === opName));
}

function refsIn(value: unknown, refs: string[]): boolean {
  return JSON.stringify(value ?? null)
    .split('"')
    .some((s) => refs.includes(s));
}

/** True when a call passes a `CallsFilter`. */
function matchesFilter(call: CallSchema, filter: CallsFilter | undefined): boolean {
  if (!filter) return true;
  return (
    opNameIn(filter.op_names, call.op_name) &&
    withinUnlessEmpty(filter.trace_ids, call.trace_id) &&
    withinUnlessEmpty(filter.call_ids, call.id) &&
    withinUnlessEmpty(filter.parent_ids, call.parent_id) &&
    within(filter.thread_ids, call.thread_id) &&
    within(filter.turn_ids, call.turn_id) &&
    withinUnlessEmpty(filter.wb_user_ids, call.wb_user_id) &&
    withinUnlessEmpty(filter.wb_run_ids, call.wb_run_id) &&
    (!filter.input_refs?.length || refsIn(call.inputs, filter.input_refs)) &&
    (!filter.output_refs?.length || refsIn(call.output, filter.output_refs)) &&
    (!filter.trace_roots_only || !call.parent_id)
  );
}

/** The parts of `CallsQueryReq` that select and order calls. */
export interface CallsSelection {
  filter?: CallsFilter;
  query?: unknown;
  sort_by?: SortBy[];
  limit?: number;
  offset?: number;
  /** A call's feedback, oldest first: what `feedback.[<type>]...` fields read (none when not given). */
  feedbackOf?: (call: CallSchema) => Feedback[];
}

// What a query reads as JSON_VALUE text: the call's stored JSON, and the feedback payload paths.
const jsonPath = (path: string): boolean => callJsonPath(path) || FeedbackFields.jsonPath(path);

/**
 * Selects calls: filter, then query expression, then sort (default: `started_at` ascending, the order a
 * trace is read in), then offset and limit. Feedback fields are read from the records given their values
 * (see feedback-fields.ts); the calls come back as given.
 */
export function selectCalls(calls: Iterable<CallSchema>, selection: CallsSelection): CallSchema[] {
  const feedback = new FeedbackFields(selection.query, selection.sort_by);
  // The service compiles the query before it reads a call, so a malformed one is refused in an empty project
  // too: reading it once against an empty call does that.
  matchesQuery(feedback.query, {}, jsonPath);
  const records = new Map<CallSchema, CallSchema>();
  for (const call of calls) records.set(feedback.used ? feedback.withValues(call, selection.feedbackOf?.(call) ?? []) : call, call);
  const kept = [...records.keys()].filter((c) => matchesFilter(c, selection.filter) && matchesQuery(feedback.query, c, jsonPath));
  const sortBy = feedback.sortBy?.length ? feedback.sortBy : [{ field: 'started_at', direction: 'asc' as const }];
  // OTel SDKs stamp span starts in whole milliseconds, so siblings often tie on started_at; the one that
  // ended first started first (sequential calls), so ties are broken by ended_at in the same direction.
  const first = sortBy[0]!;
  const tieBreak = first.field === 'started_at' ? [{ field: 'ended_at', direction: first.direction }] : [];
  return page(sortCalls(kept, [...sortBy, ...tieBreak], jsonPath), selection.limit, selection.offset).map((r) => records.get(r)!);
}

// The columns every answer carries, asked for or not (the service's required columns).
const REQUIRED = ['id', 'project_id', 'trace_id', 'op_name', 'started_at'];
// What the service reads too when the summary or costs are asked for: its status and name come from them.
const WITH_SUMMARY = ['ended_at', 'exception', 'display_name'];

/**
 * Keeps the requested columns (a dot path keeps its top-level field) and the required ones, as the service
 * selects them; every other field of the call still comes back, as the service's `CallSchema` answers it:
 * null, or `{}` for `attributes` and `inputs`, and a summary holding only the computed `weave` part.
 */
export function projectColumns(call: CallSchema, columns: string[] | undefined, includeCosts = false): CallSchema {
  if (!columns || columns.length === 0) return call;
  const keep = new Set([...REQUIRED, ...columns.map((c) => c.split('.')[0]!)]);
  if (keep.has('summary') || includeCosts) for (const c of WITH_SUMMARY) keep.add(c);
  const unselected = (key: string, value: unknown): unknown => {
    if (key === 'attributes' || key === 'inputs') return {};
    if (key === 'summary') return { weave: (value as CallSchema['summary'])?.weave ?? {} };
    return null;
  };
  return Object.fromEntries(Object.entries(call).map(([k, v]) => [k, keep.has(k) ? v : unselected(k, v)])) as unknown as CallSchema;
}
