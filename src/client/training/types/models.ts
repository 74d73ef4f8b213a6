/** Wire types of the training service's model endpoints (reference §1.2). */

/** The body of `POST /preview/models`. */
export interface ModelCreateParams {
  /** Team or user; when null or absent the API key's default entity is used. */
  entity?: string | null | undefined;
  project: string;
  /** Unique within the project. */
  name: string;
  /** A trainable base model, e.g. `OpenPipe/Qwen3-14B-Instruct`. */
  base_model: string;
  /** Return the model of the same name if it exists, instead of failing. Default false. */
  return_existing?: boolean | undefined;
  [k: string]: unknown;
}

/** A trainable model (a LoRA over a base model). */
export interface TrainingModel {
  /** A uuid. */
  id: string;
  entity: string;
  project: string;
  name: string;
  base_model: string;
  /** The W&B run that holds the model's metrics. */
  run_id: string | null;
  [k: string]: unknown;
}

/** The response of `DELETE /preview/models/{model_id}`: the model, its checkpoints and its run are gone. */
export interface DeleteModelResponse {
  model_id: string;
  deleted_checkpoints: number;
  deleted_run: boolean;
  [k: string]: unknown;
}
