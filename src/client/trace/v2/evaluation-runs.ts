import type { CallOptions } from '../../core/types.js';
import type { ResponseStream } from '../../core/response-stream.js';
import { encodePath } from '../../core/url.js';
import { deleteIds } from '../id-list.js';
import { TraceResource } from '../resource.js';
import type {
  EvaluationRunCreateBody,
  EvaluationRunCreateRes,
  EvaluationRunDeleteParams,
  EvaluationRunFinishBody,
  EvaluationRunFinishRes,
  EvaluationRunListParams,
  EvaluationRunReadRes,
  V2DeleteRes,
} from '../types/v2.js';

/** Runs of an evaluation against a model. `client.trace.v2.evaluationRuns` */
export class EvaluationRuns extends TraceResource {
  /** Starts a run. POST /v2/{entity}/{project}/evaluation_runs */
  async create(body: EvaluationRunCreateBody, options?: CallOptions): Promise<EvaluationRunCreateRes> {
    return this.json('POST', this.v2('/evaluation_runs'), { body, retry: 'once' }, options);
  }

  /**
   * Lists runs, streamed (JSONL). GET /v2/{entity}/{project}/evaluation_runs
   *
   * The filters go on the wire as the service's own clients send them: `evaluation_refs`, `model_refs` and
   * `evaluation_run_ids`, each one comma-joined list. The service ignores a query key it does not know, so a filter
   * under another name would list every run without a word.
   */
  list(params: EvaluationRunListParams = {}, options?: CallOptions): ResponseStream<EvaluationRunReadRes> {
    const { limit, offset, evaluations, models, evaluation_run_ids } = params;
    const query = {
      limit,
      offset,
      evaluation_refs: commaJoined(evaluations),
      model_refs: commaJoined(models),
      evaluation_run_ids: commaJoined(evaluation_run_ids),
    };
    return this.jsonl('GET', this.v2('/evaluation_runs'), { query }, options);
  }

  /** Reads a run. GET /v2/{entity}/{project}/evaluation_runs/{evaluation_run_id} */
  async read(evaluationRunId: string, options?: CallOptions): Promise<EvaluationRunReadRes> {
    return this.json('GET', this.v2(encodePath`/evaluation_runs/${evaluationRunId}`), {}, options);
  }

  /** Deletes runs. DELETE /v2/{entity}/{project}/evaluation_runs?evaluation_run_ids= */
  async delete(params: EvaluationRunDeleteParams, options?: CallOptions): Promise<V2DeleteRes> {
    const query = { evaluation_run_ids: deleteIds('evaluation_run_ids', params.evaluation_run_ids) };
    return this.json('DELETE', this.v2('/evaluation_runs'), { query }, options);
  }

  /** Marks a run finished, with its summary. POST /v2/{entity}/{project}/evaluation_runs/{evaluation_run_id}/finish */
  async finish(evaluationRunId: string, body: EvaluationRunFinishBody = {}, options?: CallOptions): Promise<EvaluationRunFinishRes> {
    return this.json('POST', this.v2(encodePath`/evaluation_runs/${evaluationRunId}/finish`), { body, retry: 'once' }, options);
  }
}

/** A filter's values as one query value, `a,b`; nothing for no filter (an empty list filters nothing out either). */
function commaJoined(values: readonly string[] | undefined): string | undefined {
  return values && values.length > 0 ? values.join(',') : undefined;
}
