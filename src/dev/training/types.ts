/** The training service's wire shapes, as far as `weft dev` serves them (reference training-inference.md §1.2). */

/** `ModelResponse`. */
export interface ModelResponse {
  id: string;
  entity: string;
  project: string;
  name: string;
  base_model: string;
  run_id: string | null;
}

/** `CheckpointResponse`. */
export interface CheckpointResponse {
  id: string;
  step: number;
  metrics: Record<string, number>;
}

/** The four event types of a training job; the last two end it. */
export type TrainingJobEventType = 'training_started' | 'gradient_step' | 'training_ended' | 'training_failed';

/** `TrainingJobEventResponse`. */
export interface TrainingJobEvent {
  id: string;
  type: TrainingJobEventType;
  data: Record<string, unknown>;
}

/** A job's state as `weft dev` reports it on GET; the real service's status strings are not documented. */
export type TrainingJobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** `TrainingJobResponse`, with the extra fields seen on the live service. */
export interface TrainingJobResponse {
  id: string;
  model_id: string;
  kind: 'rl' | 'sft';
  status: TrainingJobStatus;
  created_at: string;
  training_start: string | null;
  training_end: string | null;
  error_message: string | null;
}

/** `Paginated<T>`. */
export interface Page<T> {
  object: 'list';
  data: T[];
  first_id: string;
  last_id: string;
  has_more: boolean;
}
