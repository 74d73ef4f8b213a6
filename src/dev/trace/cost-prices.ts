import type { DevContext } from '../context.js';
import { Collection } from './collection.js';

/** One stored price: `CostQueryOutput` with every field set. */
export interface Cost {
  id: string;
  llm_id: string;
  prompt_token_cost: number;
  completion_token_cost: number;
  prompt_token_cost_unit: string;
  completion_token_cost_unit: string;
  effective_date: string;
  provider_id: string;
}

/** The project's prices (`/cost/create`), as one collection that the cost routes and usage reports share. */
export function costCollection(ctx: DevContext): Collection<Cost> {
  return new Collection<Cost>(ctx, 'costs', 'Cost');
}

/**
 * The price of an LLM in force at a moment: the one with the latest `effective_date` not after it. Undefined
 * when the project has none; unlike the real service, `weft dev` knows no built-in prices.
 */
export function priceAt(prices: readonly Cost[], llmId: string, at: string): Cost | undefined {
  const moment = Date.parse(at);
  let best: Cost | undefined;
  for (const p of prices) {
    if (p.llm_id !== llmId || Date.parse(p.effective_date) > moment) continue;
    if (!best || Date.parse(p.effective_date) >= Date.parse(best.effective_date)) best = p;
  }
  return best;
}
