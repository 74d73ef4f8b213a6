import type { DevContext } from '../context.js';
import { sendJson } from '../http.js';
import { uuidv7 } from '../ids.js';
import type { Route } from '../router.js';
import { checkBody } from '../validate.js';
import { type Cost, costCollection } from './cost-prices.js';
import { PAGING, type Paging, reqStr, strList } from './fields.js';
import { purgeIds } from './purge-ids.js';
import { matchesQuery, page, pickFields, sortRecords } from './query-expr.js';

type CostInput = Pick<Cost, 'prompt_token_cost' | 'completion_token_cost'> &
  Partial<Pick<Cost, 'prompt_token_cost_unit' | 'completion_token_cost_unit' | 'effective_date' | 'provider_id'>>;

const COST_INPUT = {
  type: 'object',
  strict: true,
  fields: {
    prompt_token_cost: { type: 'number', required: true },
    completion_token_cost: { type: 'number', required: true },
    prompt_token_cost_unit: { type: 'string', nullable: true },
    completion_token_cost_unit: { type: 'string', nullable: true },
    effective_date: { type: 'datetime', nullable: true },
    provider_id: { type: 'string', nullable: true },
  },
} as const;

/** Costs: prices of LLMs per project, created, queried (fields, query, sort, paging) and purged by query. */
export function costRoutes(ctx: DevContext): Route[] {
  const costs = costCollection(ctx);
  return [
    {
      method: 'POST',
      path: '/cost/create',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; costs: Record<string, CostInput> }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, costs: { type: 'object', required: true, values: COST_INPUT }, wb_user_id: { type: 'string', nullable: true } },
        });
        const now = new Date().toISOString();
        const ids: [string, string][] = [];
        for (const [llmId, input] of Object.entries(body.costs)) {
          const cost: Cost = {
            id: uuidv7(),
            llm_id: llmId,
            prompt_token_cost: input.prompt_token_cost,
            completion_token_cost: input.completion_token_cost,
            prompt_token_cost_unit: input.prompt_token_cost_unit ?? 'USD',
            completion_token_cost_unit: input.completion_token_cost_unit ?? 'USD',
            effective_date: input.effective_date ? new Date(input.effective_date).toISOString() : now,
            provider_id: input.provider_id ?? 'default',
          };
          costs.put(body.project_id, cost.id, cost);
          ids.push([llmId, cost.id]);
        }
        sendJson(c.res, 200, { ids });
      },
    },
    {
      method: 'POST',
      path: '/cost/query',
      handler: async (c) => {
        const body = checkBody<Paging & { project_id: string; fields?: string[] | null; query?: unknown }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, fields: { ...strList, nullable: true }, query: { type: 'object', nullable: true }, ...PAGING },
        });
        const kept = costs.list(body.project_id).filter((cost) => matchesQuery(body.query ?? undefined, cost));
        const selected = page(sortRecords(kept, body.sort_by ?? undefined), body.limit, body.offset);
        sendJson(c.res, 200, { results: selected.map((cost) => pickFields(cost, body.fields)) });
      },
    },
    {
      method: 'POST',
      path: '/cost/purge',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; query: unknown }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, query: { type: 'object', required: true }, wb_user_id: { type: 'string', nullable: true } },
        });
        const ids = new Set(purgeIds(body.query, 'Can only purge costs by specifying one or more cost ids', true));
        const doomed = costs.list(body.project_id).filter((cost) => ids.has(cost.id));
        costs.delete(
          body.project_id,
          doomed.map((cost) => cost.id),
        );
        sendJson(c.res, 200, {});
      },
    },
  ];
}
