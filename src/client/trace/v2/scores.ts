import type { CallOptions } from '../../core/types.js';
import type { ResponseStream } from '../../core/response-stream.js';
import { encodePath } from '../../core/url.js';
import { deleteIds } from '../id-list.js';
import { TraceResource } from '../resource.js';
import type { ScoreCreateBody, ScoreCreateRes, ScoreDeleteParams, ScoreListParams, ScoreReadRes, V2DeleteRes } from '../types/v2.js';

/** Scores given by scorers to predictions. `client.trace.v2.scores` */
export class Scores extends TraceResource {
  /** Records a score. POST /v2/{entity}/{project}/scores */
  async create(body: ScoreCreateBody, options?: CallOptions): Promise<ScoreCreateRes> {
    return this.json('POST', this.v2('/scores'), { body, retry: 'once' }, options);
  }

  /** Lists scores, streamed (JSONL). GET /v2/{entity}/{project}/scores */
  list(params: ScoreListParams = {}, options?: CallOptions): ResponseStream<ScoreReadRes> {
    const query = { evaluation_run_id: params.evaluation_run_id, limit: params.limit, offset: params.offset };
    return this.jsonl('GET', this.v2('/scores'), { query }, options);
  }

  /** Reads a score. GET /v2/{entity}/{project}/scores/{score_id} */
  async read(scoreId: string, options?: CallOptions): Promise<ScoreReadRes> {
    return this.json('GET', this.v2(encodePath`/scores/${scoreId}`), {}, options);
  }

  /** Deletes scores. DELETE /v2/{entity}/{project}/scores?score_ids= */
  async delete(params: ScoreDeleteParams, options?: CallOptions): Promise<V2DeleteRes> {
    return this.json('DELETE', this.v2('/scores'), { query: { score_ids: deleteIds('score_ids', params.score_ids) } }, options);
  }
}
