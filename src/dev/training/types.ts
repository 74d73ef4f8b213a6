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

/**
 * `TrainingJobResponse` as the GET answers it: the reference documents only `id`; `training_start`,
 * `training_end` and `error_message` were seen live (reference §1.3). A `status` was seen live too, but its
 * values are not known, so `weft dev` does not send one: code that reads it would pass here on made-up
 * values and break against the service. The job's state is read from its events.
 */
export interface TrainingJobResponse {
  id: string;
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
