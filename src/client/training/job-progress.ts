import type { TrainingJobEvent } from './types/events.js';

/** Where a job stands, summed up from its events. */
export interface JobProgress {
  /**
   * `pending` before the first event, `running` from `training_started` or a `gradient_step` on, and `succeeded`
   * or `failed` at the terminal event (`training_ended`, `training_failed`: `TERMINAL_EVENT_TYPES`).
   */
  status: 'pending' | 'running' | 'succeeded' | 'failed';
  /** `gradient_step` events seen so far. */
  step: number;
  /** Steps to expect, from `training_started.data.num_sequences`, when the service sent it. */
  totalSteps: number | undefined;
  /** The numeric metrics of the latest `gradient_step`. */
  metrics: Record<string, number>;
  /** The message of `training_failed`. */
  error: string | undefined;
}

/** The message used when a failed job gives none. */
export const UNKNOWN_FAILURE = 'Training failed with an unknown error';

/** The numeric entries of an event's free-form data. */
export function numericMetrics(data: Record<string, unknown>): Record<string, number> {
  const metrics: Record<string, number> = {};
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === 'number' && Number.isFinite(value)) metrics[key] = value;
  }
  return metrics;
}

/** The progress before any event. */
export function initialProgress(): JobProgress {
  return { status: 'pending', step: 0, totalSteps: undefined, metrics: {}, error: undefined };
}

/**
 * The progress after one more event. Pure, so the watcher, the CLI and a user's own loop agree on what the
 * events mean.
 */
export function advanceProgress(progress: JobProgress, event: TrainingJobEvent): JobProgress {
  const data = event.data ?? {};
  switch (event.type) {
    case 'training_started': {
      const total = data.num_sequences;
      return { ...progress, status: 'running', totalSteps: typeof total === 'number' ? total : progress.totalSteps };
    }
    case 'gradient_step': {
      return { ...progress, status: 'running', step: progress.step + 1, metrics: numericMetrics(data) };
    }
    case 'training_ended':
      return { ...progress, status: 'succeeded' };
    case 'training_failed': {
      const message = typeof data.error_message === 'string' && data.error_message !== '' ? data.error_message : UNKNOWN_FAILURE;
      return { ...progress, status: 'failed', error: message };
    }
    default:
      return progress;
  }
}
