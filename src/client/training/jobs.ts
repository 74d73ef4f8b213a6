import type { HttpCore } from '../core/http.js';
import { forwardCallOptions } from '../core/call-options.js';
import type { CallOptions } from '../core/types.js';
import { JobEvents, eventsPath } from './events.js';
import { encodeSegment } from '../core/url.js';
import type { CreateRlJobParams, CreateSftJobParams, TrainingJob } from './types/jobs.js';
import { type WatchJobOptions, type WatchJobOutcome, watchJob } from './watch-job.js';

/**
 * `jobs` of the training service: RL and SFT jobs, read through the same paths. Creates are sent once,
 * not retried (the service has no idempotency keys), unless the caller passes `{ idempotent: true }`.
 */
export class TrainingJobs {
  /** The job's events. */
  readonly events: JobEvents;

  constructor(private readonly core: HttpCore) {
    this.events = new JobEvents(core);
  }

  /**
   * Starts an RL job on trajectory groups (`POST /preview/training-jobs`).
   *
   * @example
   * const job = await client.training.jobs.createRl({ model_id: model.id, trajectory_groups: groups });
   * const outcome = await client.training.jobs.watch(job.id);
   */
  async createRl(params: CreateRlJobParams, options: CallOptions = {}): Promise<TrainingJob> {
    return this.core.request<TrainingJob>({
      method: 'POST',
      path: '/preview/training-jobs',
      body: params,
      ...forwardCallOptions(options, false),
    });
  }

  /** Starts an SFT job on data already uploaded as a W&B artifact (`POST /preview/sft-training-jobs`). */
  async createSft(params: CreateSftJobParams, options: CallOptions = {}): Promise<TrainingJob> {
    return this.core.request<TrainingJob>({
      method: 'POST',
      path: '/preview/sft-training-jobs',
      body: params,
      ...forwardCallOptions(options, false),
    });
  }

  /** Reads a job (`GET /preview/training-jobs/{training_job_id}`). */
  async get(jobId: string, options: CallOptions = {}): Promise<TrainingJob> {
    return this.core.request<TrainingJob>({
      method: 'GET',
      path: `/preview/training-jobs/${encodeSegment(jobId, 'jobId')}`,
      ...forwardCallOptions(options),
    });
  }

  /**
   * Follows a job until it ends: polls its events (backing off while nothing happens), calls `onEvent` once per
   * new event, and resolves with the outcome at `training_ended` or `training_failed`. A failed job resolves
   * (with `status: 'failed'` and `error`) rather than rejects; the promise rejects only when the job cannot be
   * read or `signal` aborts.
   *
   * @example
   * const outcome = await client.training.jobs.watch(job.id, {
   *   onEvent: (event, progress) => console.log(event.type, progress.step, progress.metrics.loss),
   * });
   * if (outcome.status === 'failed') throw new Error(outcome.error);
   */
  async watch(jobId: string, options: WatchJobOptions = {}): Promise<WatchJobOutcome> {
    const path = eventsPath(jobId);
    return watchJob((params, signal) => this.events.list(jobId, params, { signal }), path, options, this.core.closing);
  }
}
