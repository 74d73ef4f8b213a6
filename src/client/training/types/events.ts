import type { PageParams } from './pagination.js';

/** Wire types of training-job events (reference §1.3). */

/** What happened; `training_ended` and `training_failed` are the last event of a job. */
export type TrainingJobEventType = 'training_started' | 'gradient_step' | 'training_ended' | 'training_failed';

/** The event types after which a job emits nothing more. */
export const TERMINAL_EVENT_TYPES: readonly TrainingJobEventType[] = ['training_ended', 'training_failed'];

/**
 * One event of a job. `data` is free-form: `training_started` may carry `num_sequences` (the steps to expect),
 * `gradient_step` carries flat numeric metrics (`loss`, `reward`, …), `training_failed` may carry `error_message`.
 */
export interface TrainingJobEvent {
  /** A uuid; also the cursor for the next page. */
  id: string;
  type: TrainingJobEventType;
  data: Record<string, unknown>;
  [k: string]: unknown;
}

/** The query of `GET /preview/training-jobs/{training_job_id}/events`. */
export type EventListParams = PageParams;
