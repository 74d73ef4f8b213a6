import type { JsonObject } from './common.js';

/** POST /evaluations/evaluate_model: runs an evaluation of a model on the service. */
export interface EvaluateModelReq {
  project_id: string;
  evaluation_ref: string;
  model_ref: string;
}
/** The answer of POST /evaluations/evaluate_model. */
export interface EvaluateModelRes {
  /** The evaluation's call; pass it to `status`. */
  call_id: string;
}

/** POST /evaluations/status */
export interface EvaluationStatusReq {
  project_id: string;
  call_id: string;
}
/** Where a server-run evaluation stands. */
export type EvaluationStatus =
  | { code: 'not_found' }
  | { code: 'running'; completed_rows: number; total_rows: number }
  | { code: 'failed'; error?: string | null }
  | { code: 'complete'; output: JsonObject };
/** The answer of POST /evaluations/status. */
export interface EvaluationStatusRes {
  status: EvaluationStatus;
}
