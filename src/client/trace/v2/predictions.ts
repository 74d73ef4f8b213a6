import type { CallOptions } from '../../core/types.js';
import type { ResponseStream } from '../../core/response-stream.js';
import { encodePath } from '../../core/url.js';
import { deleteIds } from '../id-list.js';
import { TraceResource } from '../resource.js';
import type {
  PredictionCreateBody,
  PredictionCreateRes,
  PredictionDeleteParams,
  PredictionFinishRes,
  PredictionListParams,
  PredictionReadRes,
  V2DeleteRes,
} from '../types/v2.js';

/** A model's predictions, optionally within an evaluation run. `client.trace.v2.predictions` */
export class Predictions extends TraceResource {
  /** Records a prediction. POST /v2/{entity}/{project}/predictions */
  async create(body: PredictionCreateBody, options?: CallOptions): Promise<PredictionCreateRes> {
    return this.json('POST', this.v2('/predictions'), { body, retry: 'once' }, options);
  }

  /** Lists predictions, streamed (JSONL). GET /v2/{entity}/{project}/predictions */
  list(params: PredictionListParams = {}, options?: CallOptions): ResponseStream<PredictionReadRes> {
    const query = { evaluation_run_id: params.evaluation_run_id, limit: params.limit, offset: params.offset };
    return this.jsonl('GET', this.v2('/predictions'), { query }, options);
  }

  /** Reads a prediction. GET /v2/{entity}/{project}/predictions/{prediction_id} */
  async read(predictionId: string, options?: CallOptions): Promise<PredictionReadRes> {
    return this.json('GET', this.v2(encodePath`/predictions/${predictionId}`), {}, options);
  }

  /** Deletes predictions. DELETE /v2/{entity}/{project}/predictions?prediction_ids= */
  async delete(params: PredictionDeleteParams, options?: CallOptions): Promise<V2DeleteRes> {
    const query = { prediction_ids: deleteIds('prediction_ids', params.prediction_ids) };
    return this.json('DELETE', this.v2('/predictions'), { query }, options);
  }

  /** Marks a prediction finished (no body). POST /v2/{entity}/{project}/predictions/{prediction_id}/finish */
  async finish(predictionId: string, options?: CallOptions): Promise<PredictionFinishRes> {
    return this.json('POST', this.v2(encodePath`/predictions/${predictionId}/finish`), { retry: 'once' }, options);
  }
}
