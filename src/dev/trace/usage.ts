import { type Cost, priceAt } from './cost-prices.js';
import { groupBy } from './group-by.js';
import type { CallSchema, LLMUsage } from './types.js';

/** `LLMAggregatedUsage`: one model's usage summed over calls; the costs only when asked for. */
export interface AggregatedUsage {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_total_cost?: number;
  completion_tokens_total_cost?: number;
}

/** Usage by model, as `/calls/usage` and `/trace/usage` answer it for one call. */
export type UsageByModel = Record<string, AggregatedUsage>;

/**
 * One model's usage on one call, in the aggregated shape. Writers name tokens either way
 * (`prompt`/`input`, `completion`/`output`); a usage entry with no `requests` stands for one request.
 * With `prices`, the costs come from the price in force when the call started (0 when there is none).
 */
function callModelUsage(call: CallSchema, model: string, usage: LLMUsage, prices: readonly Cost[] | undefined): AggregatedUsage {
  const prompt = usage.prompt_tokens ?? usage.input_tokens ?? 0;
  const completion = usage.completion_tokens ?? usage.output_tokens ?? 0;
  const aggregated: AggregatedUsage = {
    requests: usage.requests ?? 1,
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: usage.total_tokens ?? prompt + completion,
  };
  if (prices) {
    const price = priceAt(prices, model, call.started_at);
    aggregated.prompt_tokens_total_cost = prompt * (price?.prompt_token_cost ?? 0);
    aggregated.completion_tokens_total_cost = completion * (price?.completion_token_cost ?? 0);
  }
  return aggregated;
}

/** A call's own usage by model (no descendants). */
export function ownUsage(call: CallSchema, prices?: readonly Cost[]): UsageByModel {
  const out: UsageByModel = {};
  for (const [model, usage] of Object.entries(call.summary?.usage ?? {})) out[model] = callModelUsage(call, model, usage, prices);
  return out;
}

function add(into: UsageByModel, from: UsageByModel): void {
  for (const [model, u] of Object.entries(from)) {
    const sum = into[model];
    if (!sum) {
      into[model] = { ...u };
      continue;
    }
    sum.requests += u.requests;
    sum.prompt_tokens += u.prompt_tokens;
    sum.completion_tokens += u.completion_tokens;
    sum.total_tokens += u.total_tokens;
    if (u.prompt_tokens_total_cost !== undefined) sum.prompt_tokens_total_cost = (sum.prompt_tokens_total_cost ?? 0) + u.prompt_tokens_total_cost;
    if (u.completion_tokens_total_cost !== undefined) {
      sum.completion_tokens_total_cost = (sum.completion_tokens_total_cost ?? 0) + u.completion_tokens_total_cost;
    }
  }
}

/**
 * Each call's usage plus that of all its descendants among `calls`, by call id. A call whose parent is not
 * among them counts as a root, so a partial selection still adds up.
 */
export function rollUpUsage(calls: readonly CallSchema[], prices?: readonly Cost[]): Record<string, UsageByModel> {
  const children = groupBy(calls, (call) => call.parent_id ?? undefined);
  const rolled: Record<string, UsageByModel> = {};
  const visit = (call: CallSchema, seen: Set<string>): UsageByModel => {
    const done = rolled[call.id];
    if (done) return done;
    const total = ownUsage(call, prices);
    // A parent cycle (ids reused by a misbehaving writer) must not recurse forever.
    seen.add(call.id);
    for (const child of children.get(call.id) ?? []) if (!seen.has(child.id)) add(total, visit(child, seen));
    rolled[call.id] = total;
    return total;
  };
  for (const call of calls) visit(call, new Set());
  return rolled;
}

/**
 * `summary.weave.costs` of a call, as reads with `include_costs` return it: for each model of its usage
 * that the project prices (`/cost/create`), the usage with the price in force when the call started and
 * what the tokens cost. Models without a price are left out, as the service leaves out unknown models.
 */
export function callCosts(call: CallSchema, prices: readonly Cost[]): Record<string, Record<string, unknown>> {
  const costs: Record<string, Record<string, unknown>> = {};
  for (const [model, usage] of Object.entries(call.summary?.usage ?? {})) {
    const price = priceAt(prices, model, call.started_at);
    if (!price) continue;
    const { prompt_tokens_total_cost, completion_tokens_total_cost, requests, prompt_tokens, completion_tokens, total_tokens } = callModelUsage(
      call,
      model,
      usage,
      [price],
    );
    costs[model] = {
      ...usage,
      requests,
      prompt_tokens,
      completion_tokens,
      total_tokens,
      prompt_tokens_total_cost,
      completion_tokens_total_cost,
      prompt_token_cost: price.prompt_token_cost,
      completion_token_cost: price.completion_token_cost,
      prompt_token_cost_unit: price.prompt_token_cost_unit,
      completion_token_cost_unit: price.completion_token_cost_unit,
      effective_date: price.effective_date,
      provider_id: price.provider_id,
      pricing_level: 'project',
      pricing_level_id: call.project_id,
    };
  }
  return costs;
}
