import type { HttpCore } from '../core/http.js';
import { forwardCallOptions } from '../core/call-options.js';
import type { CallOptions } from '../core/types.js';
import { paginate } from './paginate.js';
import { encodeSegment } from '../core/url.js';
import type {
  Checkpoint,
  CheckpointListParams,
  DeleteCheckpointsParams,
  DeleteCheckpointsResponse,
} from './types/checkpoints.js';
import type { Paginated } from './types/pagination.js';

/** `models.checkpoints` of the training service: the saved steps of one model. */
export class Checkpoints {
  constructor(private readonly core: HttpCore) {}

  /**
   * Lists one page of a model's checkpoints (`GET /preview/models/{model_id}/checkpoints`).
   *
   * @example
   * const { data: [latest] } = await client.training.models.checkpoints.list(modelId, { limit: 1, order: 'desc' });
   */
  async list(modelId: string, params: CheckpointListParams = {}, options: CallOptions = {}): Promise<Paginated<Checkpoint>> {
    return this.core.request<Paginated<Checkpoint>>({
      method: 'GET',
      path: checkpointsPath(modelId),
      // The keys the service takes (reference §1.2), whatever else `params` holds.
      query: { after: params.after, limit: params.limit, order: params.order },
      ...forwardCallOptions(options),
    });
  }

  /**
   * Every checkpoint of a model, page after page (`limit` sets the page size).
   *
   * @example
   * for await (const checkpoint of client.training.models.checkpoints.listAll(modelId)) console.log(checkpoint.step);
   */
  listAll(modelId: string, params: CheckpointListParams = {}, options: CallOptions = {}): AsyncGenerator<Checkpoint, void, undefined> {
    return paginate((after) => this.list(modelId, { ...params, after }, options), params.after);
  }

  /**
   * Deletes checkpoints by step (`DELETE /preview/models/{model_id}/checkpoints`, with a JSON body). Steps that
   * do not exist are listed in `not_found_steps`, not an error.
   */
  async delete(modelId: string, params: DeleteCheckpointsParams, options: CallOptions = {}): Promise<DeleteCheckpointsResponse> {
    return this.core.request<DeleteCheckpointsResponse>({
      method: 'DELETE',
      path: checkpointsPath(modelId),
      body: { steps: params.steps },
      ...forwardCallOptions(options),
    });
  }
}

function checkpointsPath(modelId: string): string {
  return `/preview/models/${encodeSegment(modelId, 'modelId')}/checkpoints`;
}
