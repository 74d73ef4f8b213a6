import type { DevContext } from '../context.js';
import { HttpError, sendJson, sendJsonl } from '../http.js';
import { uuidv7 } from '../ids.js';
import type { Route } from '../router.js';
import { checkAt, checkBody, checkOneOf, type FieldSpec, type ObjectSpec } from '../validate.js';
import { presentCall } from './call-view.js';
import { costCollection } from './cost-prices.js';
import { CALLS_FILTER, optBool, optInt, optStr, reqStr, SORT_BY, strList } from './fields.js';
import { groupBy } from './group-by.js';
import { storageSizes } from './call-storage.js';
import { callCosts } from './usage.js';
import { projectColumns, selectCalls } from './calls-query.js';
import { expandColumns } from './expand-columns.js';
import { RefValues } from './ref-values.js';
import { normalizeTimestamp } from './timestamps.js';
import type { CallSchema, CallsFilter, EndedCall, Feedback, SortBy, StartedCall } from './types.js';

const START_FIELDS: Record<string, FieldSpec> = {
  project_id: reqStr,
  id: optStr,
  op_name: reqStr,
  display_name: optStr,
  trace_id: optStr,
  parent_id: optStr,
  thread_id: optStr,
  turn_id: optStr,
  started_at: { type: 'datetime', required: true },
  attributes: { type: 'object', required: true },
  inputs: { type: 'object', required: true },
  otel_dump: { type: 'object', nullable: true },
  wb_user_id: optStr,
  wb_run_id: optStr,
  wb_run_step: optInt,
};

const END_FIELDS: Record<string, FieldSpec> = {
  project_id: reqStr,
  id: reqStr,
  ended_at: { type: 'datetime', required: true },
  summary: { type: 'object', required: true },
  exception: optStr,
  output: { type: 'any' },
  wb_run_step_end: optInt,
};

/** The kinds of item `/call/upsert_batch` takes. */
const BATCH_MODES = ['start', 'end'] as const;

const START_SPEC: ObjectSpec = {
  strict: true,
  fields: { start: { type: 'object', required: true, strict: true, fields: START_FIELDS } },
};
const END_SPEC: ObjectSpec = {
  strict: true,
  fields: { end: { type: 'object', required: true, strict: true, fields: END_FIELDS } },
};

const QUERY_SPEC: ObjectSpec = {
  strict: true,
  fields: {
    project_id: reqStr,
    filter: CALLS_FILTER,
    limit: optInt,
    offset: optInt,
    sort_by: SORT_BY,
    query: { type: 'object', nullable: true },
    include_costs: optBool,
    include_feedback: optBool,
    include_storage_size: optBool,
    include_total_storage_size: optBool,
    columns: { ...strList, nullable: true },
    expand_columns: { ...strList, nullable: true },
    return_expanded_column_values: optBool,
  },
};

const STATS_SPEC: ObjectSpec = {
  strict: true,
  fields: {
    project_id: reqStr,
    filter: CALLS_FILTER,
    query: { type: 'object', nullable: true },
    limit: optInt,
    include_total_storage_size: optBool,
    expand_columns: { ...strList, nullable: true },
  },
};

const READ_SPEC: ObjectSpec = {
  strict: true,
  fields: {
    project_id: reqStr,
    id: reqStr,
    include_costs: optBool,
    include_storage_size: optBool,
    include_total_storage_size: optBool,
  },
};

/** The storage sizes a read may ask for. */
interface Sizes {
  include_storage_size?: boolean | null;
  include_total_storage_size?: boolean | null;
}

interface CallsQueryReq extends Sizes {
  project_id: string;
  filter?: CallsFilter | null;
  limit?: number | null;
  offset?: number | null;
  sort_by?: SortBy[] | null;
  query?: unknown;
  include_feedback?: boolean | null;
  include_costs?: boolean | null;
  columns?: string[] | null;
  expand_columns?: string[] | null;
  return_expanded_column_values?: boolean | null;
}

/**
 * Writes the start half of a call and answers `{id, trace_id}`. Its time is stored as the service returns it
 * (UTC, microseconds), so that calls sent from other zones read back, sort and compare alike.
 */
function startCall(ctx: DevContext, start: StartedCall): { id: string; trace_id: string } {
  const id = start.id || uuidv7();
  const traceId = start.trace_id || uuidv7();
  ctx.write({ kind: 'call_start', start: { ...start, id, trace_id: traceId, started_at: normalizeTimestamp(start.started_at) } });
  return { id, trace_id: traceId };
}

/** Writes the end half of a call, its time stored as {@link startCall} stores the start. */
function endCall(ctx: DevContext, end: EndedCall): void {
  ctx.write({ kind: 'call_end', end: { ...end, ended_at: normalizeTimestamp(end.ended_at) } });
}

function feedbackByCall(ctx: DevContext, projectId: string): Map<string, Feedback[]> {
  return groupBy(ctx.store.projectFeedback(projectId), (f) => /\/call\/([^/]+)$/.exec(f.weave_ref)?.[1]);
}

/** A call's feedback, oldest first, grouped only once asked for (most queries read no feedback field). */
function lazyFeedback(ctx: DevContext, projectId: string): (call: CallSchema) => Feedback[] {
  let byCall: Map<string, Feedback[]> | undefined;
  return (call) => {
    byCall ??= feedbackByCall(ctx, projectId);
    return byCall.get(call.id) ?? [];
  };
}

/** The call routes: write (start, end, batch, rename, delete) and read (read, stream query, stats), with costs and feedback on request. */
export function callRoutes(ctx: DevContext): Route[] {
  const costs = costCollection(ctx);
  const refs = new RefValues(ctx);
  return [
    {
      method: 'POST',
      path: '/call/start',
      handler: async (c) => {
        const { start } = checkBody<{ start: StartedCall }>(await c.json(), START_SPEC);
        sendJson(c.res, 200, startCall(ctx, start));
      },
    },
    {
      method: 'POST',
      path: '/call/end',
      handler: async (c) => {
        const { end } = checkBody<{ end: EndedCall }>(await c.json(), END_SPEC);
        endCall(ctx, end);
        sendJson(c.res, 200, {});
      },
    },
    {
      method: 'POST',
      path: '/call/upsert_batch',
      handler: async (c) => {
        const body = checkBody<{ batch: { mode: string; req: unknown }[] }>(await c.json(), {
          strict: true,
          fields: {
            batch: {
              type: 'array',
              required: true,
              items: { type: 'object', strict: true, fields: { mode: reqStr, req: { type: 'object', required: true } } },
            },
          },
        });
        // Validate the whole batch before writing any of it, so a bad item does not leave half a batch.
        const items = body.batch.map((item, i) => {
          const mode = checkOneOf(item.mode, BATCH_MODES, ['body', 'batch', i, 'mode'], 'literal_error');
          if (mode === 'start') return { mode, req: checkAt<{ start: StartedCall }>(item.req, START_SPEC, ['body', 'batch', i, 'req']) };
          return { mode, req: checkAt<{ end: EndedCall }>(item.req, END_SPEC, ['body', 'batch', i, 'req']) };
        });
        const res = items.map((item) => {
          if (item.mode === 'start') return startCall(ctx, item.req.start);
          endCall(ctx, item.req.end);
          return {};
        });
        sendJson(c.res, 200, { res });
      },
    },
    {
      method: 'POST',
      path: '/call/read',
      handler: async (c) => {
        const body = checkBody<Sizes & { project_id: string; id: string; include_costs?: boolean | null }>(await c.json(), READ_SPEC);
        const call = ctx.store.call(body.project_id, body.id);
        const prices = body.include_costs ? costs.list(body.project_id) : undefined;
        const extras = (found: CallSchema) => ({ costs: prices && callCosts(found, prices), sizes: storageSizes(ctx.store, found, body) });
        sendJson(c.res, 200, { call: call ? presentCall(call, extras(call)) : null });
      },
    },
    {
      method: 'POST',
      path: '/call/update',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; call_id: string; display_name?: string | null }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, call_id: reqStr, display_name: optStr, wb_user_id: optStr },
        });
        // Only the display name can change, and the service wants one: without it, its ValueError is a 400.
        if (body.display_name === undefined || body.display_name === null) {
          throw new HttpError(400, 'One of [display_name] is required for call update');
        }
        // The service writes the change without looking the call up, so an unknown call is no error.
        const call = ctx.store.call(body.project_id, body.call_id);
        if (call) ctx.write({ kind: 'call', call: { ...call, display_name: body.display_name } });
        sendJson(c.res, 200, {});
      },
    },
    {
      method: 'POST',
      path: '/calls/delete',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; call_ids: string[] }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, call_ids: { ...strList, required: true }, wb_user_id: optStr },
        });
        // As on the service, deleting a call deletes its descendants too.
        const doomed = withDescendants([...ctx.store.projectCalls(body.project_id)], body.call_ids);
        if (doomed.length > 0) ctx.write({ kind: 'calls_delete', project_id: body.project_id, call_ids: doomed });
        // The service counts every id asked for, stored or not, with the descendants it found.
        sendJson(c.res, 200, { num_deleted: new Set([...body.call_ids, ...doomed]).size });
      },
    },
    {
      method: 'POST',
      path: '/calls/stream_query',
      handler: async (c) => {
        const body = checkBody<CallsQueryReq>(await c.json(), QUERY_SPEC);
        const feedback = body.include_feedback ? feedbackByCall(ctx, body.project_id) : undefined;
        const prices = body.include_costs ? costs.list(body.project_id) : undefined;
        const presented = [...ctx.store.projectCalls(body.project_id)].map((call) =>
          presentCall(call, {
            feedback: feedback && (feedback.get(call.id) ?? []),
            costs: prices && callCosts(call, prices),
            sizes: storageSizes(ctx.store, call, body),
          }),
        );
        // Filters and sorts read the expanded values; the answer carries them unless told not to, as the
        // service's `return_expanded_column_values` (default true) says.
        const expanded = new Map(presented.map((call) => [expandColumns(call, body.expand_columns ?? undefined, refs), call]));
        const selected: CallSchema[] = selectCalls(expanded.keys(), {
          filter: body.filter ?? undefined,
          query: body.query ?? undefined,
          sort_by: body.sort_by ?? undefined,
          limit: body.limit ?? undefined,
          offset: body.offset ?? undefined,
          feedbackOf: lazyFeedback(ctx, body.project_id),
        });
        const answered = body.return_expanded_column_values === false ? selected.map((call) => expanded.get(call)!) : selected;
        sendJsonl(
          c.res,
          answered.map((call) => projectColumns(call, body.columns ?? undefined, body.include_costs ?? false)),
        );
      },
    },
    {
      method: 'POST',
      path: '/calls/query_stats',
      handler: async (c) => {
        const body = checkBody<CallsQueryReq>(await c.json(), STATS_SPEC);
        const presented = [...ctx.store.projectCalls(body.project_id)].map((call) =>
          expandColumns(presentCall(call), body.expand_columns ?? undefined, refs),
        );
        const selected = selectCalls(presented, {
          filter: body.filter ?? undefined,
          query: body.query ?? undefined,
          limit: body.limit ?? undefined,
          feedbackOf: lazyFeedback(ctx, body.project_id),
        });
        // The total counts each selected trace root's whole trace, as the service sums it.
        const total = body.include_total_storage_size
          ? { total_storage_size_bytes: selected.reduce((n, call) => n + (storageSizes(ctx.store, call, body).total_storage_size_bytes ?? 0), 0) }
          : {};
        sendJson(c.res, 200, { count: selected.length, ...total });
      },
    },
  ];
}

/** The stored ids among `ids`, and the ids of every call below them. */
function withDescendants(calls: CallSchema[], ids: string[]): string[] {
  const children = groupBy(calls, (call) => call.parent_id ?? undefined);
  const stored = new Set(calls.map((call) => call.id));
  const found = new Set<string>();
  const pending = ids.filter((id) => stored.has(id));
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (found.has(id)) continue;
    found.add(id);
    // One push per child: spreading a large family into `push` overflows the stack.
    for (const child of children.get(id) ?? []) pending.push(child.id);
  }
  return [...found];
}
