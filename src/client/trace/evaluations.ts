import type { CallOptions } from '../core/types.js';
import { TraceResource } from './resource.js';
import type { ProjectScoped } from './types/common.js';
import type { EvaluateModelReq, EvaluateModelRes, EvaluationStatusReq, EvaluationStatusRes } from './types/evaluations.js';

/** Evaluations run by the service. `client.trace.evaluations` (the stored evaluation objects are `client.trace.v2.evaluations`.) */
export class Evaluations extends TraceResource {
  /** Starts evaluating a model; returns the evaluation's call id. POST /evaluations/evaluate_model */
  async evaluateModel(req: ProjectScoped<EvaluateModelReq>, options?: CallOptions): Promise<EvaluateModelRes> {
    return this.json('POST', '/evaluations/evaluate_model', { body: this.scoped(req), retry: 'once' }, options);
  }

  /** Progress of an evaluation started by `evaluateModel`. POST /evaluations/status */
  async status(req: ProjectScoped<EvaluationStatusReq>, options?: CallOptions): Promise<EvaluationStatusRes> {
    return this.json('POST', '/evaluations/status', { body: this.scoped(req), retry: 'idempotent' }, options);
  }
}
