import type { DateTimeInput, EmptyRes, Query, SortBy } from './common.js';

/** A price for one LLM. */
export interface CostCreateInput {
  prompt_token_cost: number;
  completion_token_cost: number;
  /** Default `USD`. */
  prompt_token_cost_unit?: string | undefined;
  /** Default `USD`. */
  completion_token_cost_unit?: string | undefined;
  effective_date?: DateTimeInput | undefined;
  /** Default `default`. */
  provider_id?: string | undefined;
}

/** POST /cost/create: prices keyed by LLM id. */
export interface CostCreateReq {
  project_id: string;
  costs: Record<string, CostCreateInput>;
}
/** The answer of POST /cost/create. */
export interface CostCreateRes {
  /** `[llm_id, cost_id]` pairs. */
  ids: Array<[string, string]>;
}

/** POST /cost/query */
export interface CostQueryReq {
  project_id: string;
  fields?: string[] | undefined;
  query?: Query | undefined;
  sort_by?: SortBy[] | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}
/** One price, with the fields asked for. */
export interface CostQueryOutput {
  id?: string;
  llm_id?: string;
  prompt_token_cost?: number;
  completion_token_cost?: number;
  prompt_token_cost_unit?: string;
  completion_token_cost_unit?: string;
  effective_date?: string;
  provider_id?: string;
}
/** The answer of POST /cost/query. */
export interface CostQueryRes {
  results: CostQueryOutput[];
}

/**
 * POST /cost/purge: deletes the prices `query` names by id, the only purge the service takes: an `$eq` or `$in` of
 * `id` with string literals, or an `$or` of `$eq`s (any other query is a 400).
 */
export interface CostPurgeReq {
  project_id: string;
  query: Query;
}
/** The answer of POST /cost/purge. */
export type CostPurgeRes = EmptyRes;
