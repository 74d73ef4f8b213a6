import type { HttpCore } from '../core/http.js';
import { forwardCallOptions } from '../core/call-options.js';
import type { CallOptions } from '../core/types.js';
import { Checkpoints } from './checkpoints.js';
import { encodeSegment } from '../core/url.js';
import type { DeleteModelResponse, ModelCreateParams, TrainingModel } from './types/models.js';
import type { LogParams } from './types/trajectories.js';

/**
 * `models` of the training service. Creates under `/preview/` are sent once, not retried: the service has no
 * idempotency keys, so a retry could create twice. With `return_existing: true` a repeat is safe: pass
 * `{ idempotent: true }` to have it retried like a read.
 */
export class TrainingModels {
  /** The model's checkpoints. */
  readonly checkpoints: Checkpoints;

  constructor(private readonly core: HttpCore) {
    this.checkpoints = new Checkpoints(core);
  }

  /**
   * Registers a trainable model over a base model (`POST /preview/models`).
   *
   * @example
   * const model = await client.training.models.create({
   *   project: 'my-project', name: 'agent-v1', base_model: 'OpenPipe/Qwen3-14B-Instruct', return_existing: true,
   * });
   */
  async create(params: ModelCreateParams, options: CallOptions = {}): Promise<TrainingModel> {
    return this.core.request<TrainingModel>({ method: 'POST', path: '/preview/models', body: params, ...forwardCallOptions(options, false) });
  }

  /** Deletes a model with all its checkpoints, artifacts and run (`DELETE /preview/models/{model_id}`). */
  async delete(modelId: string, options: CallOptions = {}): Promise<DeleteModelResponse> {
    return this.core.request<DeleteModelResponse>({
      method: 'DELETE',
      path: `/preview/models/${encodeSegment(modelId, 'modelId')}`,
      ...forwardCallOptions(options),
    });
  }

  /**
   * Logs trajectories and lets the service compute their metrics (`POST /preview/models/{model_id}/log`). The
   * response is not documented, so it is returned as the service sent it.
   */
  async log(modelId: string, params: LogParams, options: CallOptions = {}): Promise<unknown> {
    return this.core.request<unknown>({
      method: 'POST',
      path: `/preview/models/${encodeSegment(modelId, 'modelId')}/log`,
      body: params,
      allowText: true,
      ...forwardCallOptions(options, false),
    });
  }
}
