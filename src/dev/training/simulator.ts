import { randomUUID } from 'node:crypto';
import { HttpError } from '../http.js';
import { jobEnded, type StoredJob, type StoredModel, type TrainingMutation, type TrainingStore } from './store.js';
import type { CheckpointResponse, ModelResponse, TrainingJobEvent, TrainingJobEventType, TrainingJobResponse } from './types.js';

/**
 * Why a job that was queued or running when the service stopped is failed on the next start instead of
 * resumed: what drives a job (its step count, its simulated failure, and the metrics computed from its RL
 * trajectory groups) is not in the log, and persisting whole trajectory groups to replay a simulation is not
 * worth the size. Failing it with this message keeps its events so far readable and tells the truth.
 */
const RESTART_ERROR_MESSAGE = 'The weft dev service restarted during training; the job was interrupted and was not resumed.';

/** Options of a job being created; kept in memory only, while the job runs. */
export interface JobPlan {
  kind: 'rl' | 'sft';
  modelId: string;
  steps: number;
  /** When set, the job fails with this message after its first gradient step. */
  failure: string | undefined;
  metrics: (step: number) => Record<string, number>;
  dataUrl?: string;
}

/**
 * A stand-in for the training service: models with checkpoints, and RL/SFT jobs that move through
 * `training_started` → `gradient_step` × N → `training_ended` (or `training_failed`) on a timer, one event
 * every `stepMs`, writing one checkpoint per gradient step. It decides what happens; every change goes as a
 * record through `write` (the dev service's one writer, which applies it to `state` and appends it to the
 * `--data` log), so the training state survives a restart the way the trace data does.
 */
export class TrainingSimulator {
  // What drives the jobs running in this process; not persisted (see RESTART_ERROR_MESSAGE).
  private readonly plans = new Map<string, JobPlan>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly state: TrainingStore,
    private readonly write: (record: TrainingMutation) => void,
    private readonly stepMs: number,
  ) {}

  /**
   * Fails every job that a previous run of the service left queued or running (replayed from the log) with
   * a `training_failed` event; returns how many. Call once, after replay and before serving.
   */
  failInterruptedJobs(): number {
    let failed = 0;
    for (const job of [...this.state.jobs()]) {
      if (jobEnded(job) || this.plans.has(job.id)) continue;
      this.emit(job, 'training_failed', { error_message: RESTART_ERROR_MESSAGE });
      failed++;
    }
    return failed;
  }

  /** Creates a model (or returns the existing one when asked); it starts with the untrained step 0. */
  createModel(req: { entity: string; project: string; name: string; base_model: string; return_existing: boolean }): ModelResponse {
    const existing = [...this.state.models()].find((m) => m.entity === req.entity && m.project === req.project && m.name === req.name);
    if (existing) {
      if (!req.return_existing) {
        throw new HttpError(409, `A model named "${req.name}" already exists in ${req.entity}/${req.project}; pass return_existing: true to reuse it.`);
      }
      return publicModel(existing);
    }
    const model: StoredModel = {
      id: randomUUID(),
      entity: req.entity,
      project: req.project,
      name: req.name,
      base_model: req.base_model,
      run_id: `run-${randomUUID().slice(0, 8)}`,
      checkpoints: [{ id: randomUUID(), step: 0, metrics: {} }],
    };
    this.write({ kind: 'training_model', model });
    return publicModel(model);
  }

  /** A model, or a 404 naming it. */
  model(id: string): StoredModel {
    const model = this.state.model(id);
    if (!model) throw new HttpError(404, `Model ${id} not found`);
    return model;
  }

  /** Deletes a model with its checkpoints and run. */
  deleteModel(id: string): { model_id: string; deleted_checkpoints: number; deleted_run: boolean } {
    const deleted = this.model(id).checkpoints.length;
    this.write({ kind: 'training_model_delete', model_id: id });
    return { model_id: id, deleted_checkpoints: deleted, deleted_run: true };
  }

  /** A model's checkpoints by step, or a 404. */
  checkpoints(id: string, order: 'asc' | 'desc'): CheckpointResponse[] {
    return [...this.model(id).checkpoints].sort((a, b) => (order === 'asc' ? a.step - b.step : b.step - a.step));
  }

  /** Deletes checkpoints by step; steps that do not exist are reported back. */
  deleteCheckpoints(id: string, steps: number[]): { deleted_count: number; not_found_steps: number[] } {
    const model = this.model(id);
    const present = new Set(model.checkpoints.map((c) => c.step));
    const notFound = steps.filter((s) => !present.has(s));
    const before = model.checkpoints.length;
    this.write({ kind: 'training_checkpoints_delete', model_id: id, steps });
    return { deleted_count: before - model.checkpoints.length, not_found_steps: notFound };
  }

  /** Starts a job; events follow on the timer. */
  createJob(plan: JobPlan): { id: string } {
    this.model(plan.modelId);
    if (plan.dataUrl) {
      const same = [...this.state.jobs()].find((j) => j.model_id === plan.modelId && j.data_url === plan.dataUrl);
      if (same) return { id: same.id };
    }
    const job: StoredJob = {
      id: randomUUID(),
      model_id: plan.modelId,
      kind: plan.kind,
      status: 'queued',
      created_at: new Date().toISOString(),
      training_start: null,
      training_end: null,
      error_message: null,
      events: [],
      ...(plan.dataUrl ? { data_url: plan.dataUrl } : {}),
    };
    this.plans.set(job.id, plan);
    this.write({ kind: 'training_job', job });
    this.schedule(job.id, 0);
    return { id: job.id };
  }

  /** A job as the service answers it (see {@link TrainingJobResponse}), or a 404. */
  job(id: string): TrainingJobResponse {
    const { training_start, training_end, error_message } = this.storedJob(id);
    return { id, training_start, training_end, error_message };
  }

  /** A job's events so far, oldest first, or a 404. */
  events(id: string): readonly TrainingJobEvent[] {
    return this.storedJob(id).events;
  }

  /** Stops every pending timer (jobs stay where they are, and a restart fails them). */
  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private storedJob(id: string): StoredJob {
    const job = this.state.job(id);
    if (!job) throw new HttpError(404, `Training job ${id} not found`);
    return job;
  }

  private schedule(jobId: string, tick: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.advance(jobId, tick)) this.schedule(jobId, tick + 1);
      else this.plans.delete(jobId);
    }, this.stepMs);
    timer.unref();
    this.timers.add(timer);
  }

  // The store derives the job's status and times from the event (one record per tick).
  private emit(job: StoredJob, type: TrainingJobEventType, data: Record<string, unknown>, checkpoint?: CheckpointResponse): void {
    const event: TrainingJobEvent = { id: randomUUID(), type, data };
    this.write({ kind: 'training_job_event', job_id: job.id, at: new Date().toISOString(), event, ...(checkpoint ? { checkpoint } : {}) });
  }

  private end(job: StoredJob, failure?: string): false {
    if (failure === undefined) this.emit(job, 'training_ended', {});
    else this.emit(job, 'training_failed', { error_message: failure });
    return false;
  }

  // One event per tick; returns whether the job continues.
  private advance(jobId: string, tick: number): boolean {
    const job = this.state.job(jobId);
    const plan = this.plans.get(jobId);
    if (!job || !plan) return false;
    if (tick === 0) {
      this.emit(job, 'training_started', { num_sequences: plan.steps });
      return true;
    }
    const model = this.state.model(job.model_id);
    if (!model) return this.end(job, `Model ${job.model_id} was deleted while the job ran`);
    if (plan.failure !== undefined && tick > 1) return this.end(job, plan.failure);
    if (tick > plan.steps) return this.end(job);
    const metrics = plan.metrics(tick);
    // A loop, not `Math.max(...steps)`: a spread of many checkpoints would overflow the stack.
    let step = 1;
    for (const c of model.checkpoints) step = Math.max(step, c.step + 1);
    this.emit(job, 'gradient_step', metrics, { id: randomUUID(), step, metrics });
    return true;
  }
}

function publicModel(model: StoredModel): ModelResponse {
  const { checkpoints: _c, ...pub } = model;
  return pub;
}
