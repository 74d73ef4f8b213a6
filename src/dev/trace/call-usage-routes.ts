import type { DevContext } from '../context.js';
import { sendJson } from '../http.js';
import type { Route } from '../router.js';
import { checkBody, type FieldSpec } from '../validate.js';
import { presentCall } from './call-view.js';
import { CALL_METRICS, callStats, checkMetrics, type MetricSpec, USAGE_METRICS } from './call-stats.js';
import { selectCalls } from './calls-query.js';
import { costCollection } from './cost-prices.js';
import { CALLS_FILTER, optBool, optInt, reqStr, strList } from './fields.js';
import type { CallsFilter, CallSchema } from './types.js';
import { STATS_WINDOW_FIELDS, statsWindow } from './time-buckets.js';
import { rollUpUsage } from './usage.js';

/** The service's default cap on the calls a usage report reads. */
const DEFAULT_USAGE_LIMIT = 10_000;

const METRIC_SPECS: FieldSpec = {
  type: 'array',
  nullable: true,
  items: {
    type: 'object',
    strict: true,
    fields: { metric: reqStr, aggregations: { ...strList, nullable: true }, percentiles: { type: 'array', nullable: true, items: { type: 'number' } } },
  },
};

interface CallStatsReq {
  project_id: string;
  start: string;
  end?: string | null;
  granularity?: number | null;
  usage_metrics?: MetricSpec[] | null;
  call_metrics?: MetricSpec[] | null;
  filter?: CallsFilter | null;
  timezone?: string | null;
}

/**
 * Usage reports and time-bucketed statistics, computed from the stored calls' `summary.usage` and the
 * project's prices (`/cost/create`).
 */
export function callUsageRoutes(ctx: DevContext): Route[] {
  const prices = costCollection(ctx);
  const presented = (projectId: string) => [...ctx.store.projectCalls(projectId)].map((call) => presentCall(call));
  const usageOf = (projectId: string, calls: CallSchema[], includeCosts: boolean | null | undefined) =>
    rollUpUsage(calls, includeCosts ? prices.list(projectId) : undefined);
  return [
    {
      method: 'POST',
      path: '/calls/usage',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; call_ids: string[]; include_costs?: boolean | null; limit?: number | null }>(
          await c.json(),
          { strict: true, fields: { project_id: reqStr, call_ids: { ...strList, required: true }, include_costs: optBool, limit: optInt } },
        );
        // Each root's usage covers its whole subtree, so only the roots' traces are read: the work grows with
        // the traces asked about, not with the project.
        const traceIds = [...new Set(body.call_ids.map((id) => ctx.store.call(body.project_id, id)?.trace_id).filter((t) => t !== undefined))];
        const traceCalls = traceIds.flatMap((traceId) => ctx.store.traceCalls(body.project_id, traceId)).map((call) => presentCall(call));
        const calls = selectCalls(traceCalls, { filter: { trace_ids: traceIds }, limit: body.limit ?? DEFAULT_USAGE_LIMIT });
        const rolled = usageOf(body.project_id, calls, body.include_costs);
        const call_usage = Object.fromEntries(body.call_ids.filter((id) => rolled[id]).map((id) => [id, rolled[id]]));
        sendJson(c.res, 200, { call_usage });
      },
    },
    {
      method: 'POST',
      path: '/trace/usage',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; filter?: CallsFilter | null; query?: unknown; include_costs?: boolean | null; limit?: number | null }>(
          await c.json(),
          {
            strict: true,
            fields: { project_id: reqStr, filter: CALLS_FILTER, query: { type: 'object', nullable: true }, include_costs: optBool, limit: optInt },
          },
        );
        const calls = selectCalls(presented(body.project_id), {
          filter: body.filter ?? undefined,
          query: body.query ?? undefined,
          limit: body.limit ?? DEFAULT_USAGE_LIMIT,
        });
        sendJson(c.res, 200, { call_usage: usageOf(body.project_id, calls, body.include_costs) });
      },
    },
    {
      method: 'POST',
      path: '/calls/stats',
      handler: async (c) => {
        const body = checkBody<CallStatsReq>(await c.json(), {
          strict: true,
          fields: {
            project_id: reqStr,
            ...STATS_WINDOW_FIELDS,
            usage_metrics: METRIC_SPECS,
            call_metrics: METRIC_SPECS,
            filter: CALLS_FILTER,
          },
        });
        checkMetrics(body.usage_metrics, USAGE_METRICS, 'usage_metrics');
        checkMetrics(body.call_metrics, CALL_METRICS, 'call_metrics');
        const { window, header } = statsWindow(body);
        const calls = selectCalls(presented(body.project_id), { filter: body.filter ?? undefined });
        const buckets = callStats(calls, window, body.usage_metrics ?? [], body.call_metrics ?? [], prices.list(body.project_id));
        sendJson(c.res, 200, {
          ...header,
          ...buckets,
        });
      },
    },
  ];
}
