/**
 * Shapes shared by many trace-service endpoints. Field names are the wire's (snake_case), as in
 * `../shared/reference/trace-service.md` §2.0. Most request models on the server forbid unknown fields
 * (a stray field is a 422), so request types list only the documented fields.
 */

/** An ISO-8601 date-time string. Requests also accept a `Date`, which JSON turns into the same string. */
export type DateTimeInput = string | Date;

/** A JSON object whose keys are not fixed by the service. */
export type JsonObject = Record<string, unknown>;

/**
 * A request as the client method takes it: `project_id` is optional because the client fills it in from
 * its `project` (an explicit value wins).
 */
export type ProjectScoped<T extends { project_id: string }> = Omit<T, 'project_id'> & { project_id?: string | undefined };

/** A response or request the reference does not describe: typed loosely on purpose, not invented. */
export type UnknownShape = Record<string, unknown>;

/** Status of a traced call, filled in by the server. */
export type TraceStatus = 'success' | 'error' | 'running' | 'descendant_error';

/** Sort order; `field` may be a dot path into `attributes`, `inputs`, `output` or `summary`. */
export interface SortBy {
  field: string;
  direction: 'asc' | 'desc';
}

/** Operand of a query expression. */
export type QueryOperand =
  | { $literal: string | number | boolean | null | JsonObject | unknown[] }
  | { $getField: string }
  | { $convert: { input: QueryOperand; to: 'double' | 'string' | 'int' | 'bool' | 'exists' } }
  | QueryOperation;

/** One operation of the query language (`$and`, `$eq`, `$contains`…). */
export type QueryOperation =
  | { $and: QueryOperand[] }
  | { $or: QueryOperand[] }
  | { $not: [QueryOperand] }
  | { $eq: [QueryOperand, QueryOperand] }
  | { $gt: [QueryOperand, QueryOperand] }
  | { $gte: [QueryOperand, QueryOperand] }
  // Not in the reference's table, which predates them: the service's query language has had both since (Weave's
  // interface/query.py, LtOperation and LteOperation).
  | { $lt: [QueryOperand, QueryOperand] }
  | { $lte: [QueryOperand, QueryOperand] }
  | { $in: [QueryOperand, QueryOperand[]] }
  | { $contains: { input: QueryOperand; substr: QueryOperand; case_insensitive?: boolean | undefined } };

/** A query: `{ $expr: operation }`. */
export interface Query {
  $expr: QueryOperation;
}

/** Filter of calls; every list matches any of its values. */
export interface CallsFilter {
  op_names?: string[] | undefined;
  input_refs?: string[] | undefined;
  output_refs?: string[] | undefined;
  parent_ids?: string[] | undefined;
  trace_ids?: string[] | undefined;
  call_ids?: string[] | undefined;
  /** Newer servers only. */
  thread_ids?: string[] | undefined;
  /** Newer servers only. */
  turn_ids?: string[] | undefined;
  wb_user_ids?: string[] | undefined;
  wb_run_ids?: string[] | undefined;
  trace_roots_only?: boolean | undefined;
}

/** Token usage of one model. */
export interface LLMUsage {
  prompt_tokens?: number | undefined;
  input_tokens?: number | undefined;
  completion_tokens?: number | undefined;
  output_tokens?: number | undefined;
  requests?: number | undefined;
  total_tokens?: number | undefined;
}

/** Usage with the cost the server computed. */
export interface LLMCost extends LLMUsage {
  prompt_tokens_total_cost?: number;
  completion_tokens_total_cost?: number;
  prompt_token_cost?: number;
  completion_token_cost?: number;
  prompt_token_cost_unit?: string;
  completion_token_cost_unit?: string;
  effective_date?: string;
  provider_id?: string;
  pricing_level?: string;
  pricing_level_id?: string;
  created_at?: string;
  created_by?: string;
}

/** Usage summed over calls, per model. */
export interface LLMAggregatedUsage {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_total_cost?: number | null;
  completion_tokens_total_cost?: number | null;
}

/** A call's summary as written by a client; other keys are allowed. */
export interface SummaryInsertMap {
  /** Usage per model name. */
  usage?: Record<string, LLMUsage> | undefined;
  /** Newer servers only. */
  status_counts?: Partial<Record<TraceStatus, number | undefined>> | undefined;
  [key: string]: unknown;
}

/** A call's summary as read back: the written map plus what the server adds under `weave`. */
export interface SummaryMap extends SummaryInsertMap {
  weave?: {
    status?: TraceStatus;
    trace_name?: string;
    latency_ms?: number;
    costs?: Record<string, LLMCost>;
    feedback?: JsonObject[];
    [key: string]: unknown;
  };
}

/** `{ num_deleted }`, the answer of most deletes. */
export interface DeleteRes {
  num_deleted: number;
}

/** The service answers `{}` (no fields are documented; any that appear are kept). */
export type EmptyRes = Record<string, unknown>;
