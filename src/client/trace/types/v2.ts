/**
 * The project-scoped resources under `/v2/{entity}/{project}`: the project is in the path, so no body
 * carries `project_id`. Lists are JSONL streams paged with `limit`/`offset`; list filters and deletes take their ids
 * as repeated query parameters (as the service's own Python client sends them).
 */
import type { DeleteRes, JsonObject, UnknownShape } from './common.js';

/** `limit`/`offset` of a v2 list. */
export interface V2ListParams {
  limit?: number | undefined;
  offset?: number | undefined;
}

/** Which versions a delete removes; all of them when `digests` is absent. */
export interface V2ObjectDeleteParams {
  digests?: string[] | undefined;
}
/** What a v2 delete answers. */
export type V2DeleteRes = DeleteRes;

/** Fields every versioned v2 object has when read. */
export interface V2ObjectVersion {
  object_id: string;
  digest: string;
  version_index: number;
  created_at: string;
}

/** What a v2 create answers. */
export interface V2ObjectCreated {
  digest: string;
  object_id: string;
  version_index: number;
}

// Ops
/** POST ops: stores an op's source as a new version. */
export interface OpCreateBody {
  name?: string | undefined;
  source_code?: string | undefined;
}
/** What an op create answers. */
export type OpCreateRes = V2ObjectCreated;
/** One version of an op, with its source code. */
export interface OpReadRes extends V2ObjectVersion {
  code: string;
}

// Datasets
/** POST datasets: stores rows as a new dataset version. */
export interface DatasetCreateBody {
  name?: string | undefined;
  description?: string | undefined;
  rows: JsonObject[];
}
/** What a dataset create answers. */
export type DatasetCreateRes = V2ObjectCreated;
/** One version of a dataset. */
export interface DatasetReadRes extends V2ObjectVersion {
  name: string;
  description?: string | null;
  /** A table ref; read the rows with `tables.query`. */
  rows: string;
}

// Scorers
/** POST scorers: stores a scorer from the source of its scoring op. */
export interface ScorerCreateBody {
  name: string;
  description?: string | undefined;
  op_source_code: string;
}
/** What a scorer create answers. */
export interface ScorerCreateRes extends V2ObjectCreated {
  /** Ref of the scorer. */
  scorer: string;
}
/** One version of a scorer. */
export interface ScorerReadRes extends V2ObjectVersion {
  name: string;
  description?: string | null;
  /** Ref of the scoring op. */
  score_op: string;
}

// Models
/** POST models: stores a model's source (and attributes) as a new version. */
export interface ModelCreateBody {
  name: string;
  description?: string | undefined;
  source_code: string;
  attributes?: JsonObject | undefined;
}
/** What a model create answers. */
export interface ModelCreateRes extends V2ObjectCreated {
  model_ref: string;
}
/** One version of a model. */
export interface ModelReadRes extends V2ObjectVersion {
  name: string;
  description?: string | null;
  source_code: string;
  attributes?: JsonObject | null;
}

// Evaluations
/** POST evaluations: stores an evaluation definition (a dataset and scorers). */
export interface EvaluationCreateBody {
  name: string;
  description?: string | undefined;
  /** Ref of the dataset. */
  dataset: string;
  /** Refs of the scorers. */
  scorers?: string[] | undefined;
  /** Default 1. */
  trials?: number | undefined;
  evaluation_name?: string | undefined;
  eval_attributes?: JsonObject | undefined;
}
/** What an evaluation create answers. */
export interface EvaluationCreateRes extends V2ObjectCreated {
  evaluation_ref: string;
}
/** One version of an evaluation definition. */
export interface EvaluationReadRes extends V2ObjectVersion {
  name: string;
  description?: string | null;
  dataset: string;
  scorers: string[];
  trials: number;
  evaluation_name?: string | null;
  evaluate_op?: string | null;
  predict_and_score_op?: string | null;
  summarize_op?: string | null;
}

// Evaluation runs
/** POST evaluation_runs: starts a run of an evaluation against a model. */
export interface EvaluationRunCreateBody {
  /** Ref of the evaluation. */
  evaluation: string;
  /** Ref of the model. */
  model: string;
}
/** What an evaluation-run create answers. */
export interface EvaluationRunCreateRes {
  evaluation_run_id: string;
}
/**
 * GET evaluation_runs: paging and filters, named as the service's interface names them. On the wire they are the
 * query keys its own clients send, each list comma-joined: `evaluation_refs`, `model_refs`, `evaluation_run_ids`.
 * A run passes when it matches any value of every filter given.
 */
export interface EvaluationRunListParams extends V2ListParams {
  /** Refs of evaluations (`evaluation_refs`). */
  evaluations?: string[] | undefined;
  /** Refs of models (`model_refs`). */
  models?: string[] | undefined;
  evaluation_run_ids?: string[] | undefined;
}
/** One evaluation run. */
export interface EvaluationRunReadRes {
  evaluation_run_id: string;
  evaluation: string;
  model: string;
  status?: string | null;
  started_at?: string | null;
  finished_at?: string | null;
  summary?: JsonObject | null;
}
/**
 * Which runs to delete, sent as repeated query parameters. Where the service reads them is UNVERIFIED: the
 * reference names a body field of the same name, one version of the service's routes took the body as a bare
 * list, and its later SDKs send query parameters (weft dev takes all three).
 */
export interface EvaluationRunDeleteParams {
  evaluation_run_ids: string[];
}
/** POST evaluation_runs/{id}/finish */
export interface EvaluationRunFinishBody {
  summary?: JsonObject | undefined;
}
/** What finishing a run answers. */
export interface EvaluationRunFinishRes {
  success: boolean;
}

// Predictions
/** POST predictions: records one output of a model. */
export interface PredictionCreateBody {
  /** Ref of the model. */
  model: string;
  inputs: JsonObject;
  output: unknown;
  evaluation_run_id?: string | undefined;
}
/** What a prediction create answers. */
export interface PredictionCreateRes {
  prediction_id: string;
}
/** GET predictions: paging and an optional run filter. */
export interface PredictionListParams extends V2ListParams {
  evaluation_run_id?: string | undefined;
}
/** One prediction. */
export interface PredictionReadRes {
  prediction_id: string;
  model: string;
  inputs: JsonObject;
  output: unknown;
  evaluation_run_id?: string | null;
}
/**
 * Which predictions to delete, sent as repeated query parameters. Where the service reads them is UNVERIFIED: the
 * reference names a body field of the same name, one version of the service's routes took the body as a bare
 * list, and its later SDKs send query parameters (weft dev takes all three).
 */
export interface PredictionDeleteParams {
  prediction_ids: string[];
}
/** What finishing a prediction answers. */
export interface PredictionFinishRes {
  success: boolean;
}

// Scores
/** POST scores: records a scorer's value for a prediction. */
export interface ScoreCreateBody {
  prediction_id: string;
  /** Ref of the scorer. */
  scorer: string;
  value: number;
  evaluation_run_id?: string | undefined;
}
/** What a score create answers. */
export interface ScoreCreateRes {
  score_id: string;
}
/** GET scores: paging and an optional run filter. */
export interface ScoreListParams extends V2ListParams {
  evaluation_run_id?: string | undefined;
}
/** One score. */
export interface ScoreReadRes {
  score_id: string;
  scorer: string;
  value: number;
  evaluation_run_id?: string | null;
}
/**
 * Which scores to delete, sent as repeated query parameters. Where the service reads them is UNVERIFIED: the
 * reference names a body field of the same name, one version of the service's routes took the body as a bare
 * list, and its later SDKs send query parameters (weft dev takes all three).
 */
export interface ScoreDeleteParams {
  score_ids: string[];
}

// Eval results
/** POST eval_results/query: the known fields; others are allowed (the full shape is UNVERIFIED). */
export interface EvalResultsQueryBody {
  evaluation_call_ids: string[];
  include_rows?: boolean | undefined;
  include_summary?: boolean | undefined;
  [key: string]: unknown;
}
/** Has `total_rows` and per-row trials and scorer stats; the full shape is UNVERIFIED. */
export interface EvalResultsQueryRes extends UnknownShape {
  total_rows?: number;
}
