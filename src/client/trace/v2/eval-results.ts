import type { CallOptions } from '../../core/types.js';
import { TraceResource } from '../resource.js';
import type { EvalResultsQueryBody, EvalResultsQueryRes } from '../types/v2.js';

/** Results of evaluations, row by row. `client.trace.v2.evalResults` */
export class EvalResults extends TraceResource {
  /** POST /v2/{entity}/{project}/eval_results/query */
  async query(body: EvalResultsQueryBody, options?: CallOptions): Promise<EvalResultsQueryRes> {
    return this.json('POST', this.v2('/eval_results/query'), { body, retry: 'idempotent' }, options);
  }
}
