import type { CheckpointResponse, ModelResponse, TrainingJobEvent, TrainingJobResponse } from './types.js';

/** A model as stored: its public fields and its checkpoints. */
export interface StoredModel extends ModelResponse {
  checkpoints: CheckpointResponse[];
}

/**
 * Where a job stands, for weft dev's own bookkeeping (whether it has ended, whether a restart interrupted it).
 * Not sent: the service's status names are not documented (see {@link TrainingJobResponse}).
 */
export type StoredJobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/**
 * A job as stored: its public fields, and what only weft dev reads: its model (for the checkpoints its steps
 * write), kind, state, creation time, events so far, and the SFT data URL (for idempotency).
 */
export interface StoredJob extends TrainingJobResponse {
  model_id: string;
  kind: 'rl' | 'sft';
  status: StoredJobStatus;
  created_at: string;
  events: TrainingJobEvent[];
  data_url?: string;
}

/**
 * One change to the training state. Like the trace store's mutations, every write is one record, so that
 * the same record is applied in memory and appended to the `--data` log, and replaying the log rebuilds the
 * same state. A job's status follows from its events (see `applyEvent`), so one tick of a job is one line:
 * a crash can cut a job short but never leave an event without the status change or checkpoint it made.
 */
export type TrainingMutation =
  | { kind: 'training_model'; model: StoredModel }
  | { kind: 'training_model_delete'; model_id: string }
  | { kind: 'training_checkpoints_delete'; model_id: string; steps: number[] }
  | { kind: 'training_job'; job: StoredJob }
  | {
      kind: 'training_job_event';
      job_id: string;
      /** When it happened; becomes the job's training_start or training_end. */
      at: string;
      event: TrainingJobEvent;
      /** The checkpoint a gradient step wrote to the job's model. */
      checkpoint?: CheckpointResponse;
    };

const KINDS = new Set<string>(['training_model', 'training_model_delete', 'training_checkpoints_delete', 'training_job', 'training_job_event']);

/** Whether a record of the data file belongs to the training state (the rest are trace mutations). */
export function isTrainingMutation(record: { kind: string }): record is TrainingMutation {
  return KINDS.has(record.kind);
}

/** Whether a job has ended (its status will not change again). */
export const jobEnded = (job: StoredJob): boolean => job.status === 'succeeded' || job.status === 'failed';

/**
 * The training service's data, in memory: models with their checkpoints, and jobs with their events. It is
 * changed only through {@link TrainingStore.apply}; the simulator decides what happens, this applies it.
 */
export class TrainingStore {
  private readonly modelMap = new Map<string, StoredModel>();
  private readonly jobMap = new Map<string, StoredJob>();

  /** Applies a record. Throws on a record that names an unknown job, so that replay counts it as unreadable. */
  apply(record: TrainingMutation): void {
    switch (record.kind) {
      case 'training_model':
        // Copies, so that later records change the store's state and never the caller's object.
        this.modelMap.set(need(record.model?.id, 'model.id'), { ...record.model, checkpoints: [...record.model.checkpoints] });
        return;
      case 'training_model_delete':
        this.modelMap.delete(need(record.model_id, 'model_id'));
        return;
      case 'training_checkpoints_delete': {
        const model = this.modelMap.get(need(record.model_id, 'model_id'));
        if (model) model.checkpoints = model.checkpoints.filter((c) => !record.steps.includes(c.step));
        return;
      }
      case 'training_job':
        this.jobMap.set(need(record.job?.id, 'job.id'), { ...record.job, events: [...record.job.events] });
        return;
      case 'training_job_event':
        this.applyEvent(record);
        return;
      default:
        throw new TypeError(`unknown training record kind ${JSON.stringify((record as { kind?: unknown })?.kind)}`);
    }
  }

  private applyEvent(record: Extract<TrainingMutation, { kind: 'training_job_event' }>): void {
    const job = this.jobMap.get(record.job_id);
    if (!job) throw new TypeError(`training event for unknown job ${JSON.stringify(record.job_id)}`);
    job.events.push(record.event);
    // A model deleted while its job ran keeps no checkpoints.
    if (record.checkpoint) this.modelMap.get(job.model_id)?.checkpoints.push(record.checkpoint);
    switch (record.event.type) {
      case 'training_started':
        job.status = 'running';
        job.training_start = record.at;
        return;
      case 'training_ended':
        job.status = 'succeeded';
        job.training_end = record.at;
        return;
      case 'training_failed': {
        const message = record.event.data.error_message;
        job.status = 'failed';
        job.training_end = record.at;
        job.error_message = typeof message === 'string' ? message : 'Training failed with an unknown error';
        return;
      }
      default:
        return;
    }
  }

  /** A model, or undefined. */
  model(id: string): StoredModel | undefined {
    return this.modelMap.get(id);
  }

  /** Every model, oldest first. */
  models(): Iterable<StoredModel> {
    return this.modelMap.values();
  }

  /** A job, or undefined. */
  job(id: string): StoredJob | undefined {
    return this.jobMap.get(id);
  }

  /** Every job, oldest first. */
  jobs(): Iterable<StoredJob> {
    return this.jobMap.values();
  }

  /** The records that rebuild the current state, used when the `--data` log is compacted. */
  *snapshot(): Iterable<TrainingMutation> {
    for (const model of this.modelMap.values()) yield { kind: 'training_model', model };
    for (const job of this.jobMap.values()) yield { kind: 'training_job', job };
  }
}

function need(value: string | undefined, field: string): string {
  if (typeof value !== 'string') throw new TypeError(`training record without ${field}`);
  return value;
}
