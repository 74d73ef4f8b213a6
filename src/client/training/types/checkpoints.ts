import type { PageParams, SortOrder } from './pagination.js';

/** Wire types of a model's checkpoints (reference §1.2). */

/** One saved step of a model. Step 0 is the untrained adapter created with the model. */
export interface Checkpoint {
  /** A uuid. */
  id: string;
  step: number;
  metrics: Record<string, number>;
  [k: string]: unknown;
}

/** The query of `GET /preview/models/{model_id}/checkpoints`. */
export interface CheckpointListParams extends PageParams {
  /** By step; the service's default is `asc`. `{ limit: 1, order: 'desc' }` finds the latest. */
  order?: SortOrder | undefined;
}

/** The body of `DELETE /preview/models/{model_id}/checkpoints`. */
export interface DeleteCheckpointsParams {
  steps: number[];
}

/** The response of `DELETE /preview/models/{model_id}/checkpoints`. */
export interface DeleteCheckpointsResponse {
  deleted_count: number;
  not_found_steps: number[];
  [k: string]: unknown;
}
