import { randomUUID } from 'node:crypto';
import { HttpError } from '../http.js';
import type {
  CheckpointResponse,
  ModelResponse,
  Page,
  TrainingJobEvent,
  TrainingJobEventType,
  TrainingJobResponse,
} from './types.js';

interface ModelState extends ModelResponse {
  checkpoints: CheckpointResponse[];
}

interface JobState extends TrainingJobResponse {
  events: TrainingJobEvent[];
  steps: number;
  failure: string | undefined;
  metrics: (step: number) => Record<string, number>;
  /** For SFT idempotency: the same model and data URL give back the same job. */
  dataUrl?: string;
}

/** Options of a job being created. */
export interface JobPlan {
  kind: 'rl' | 'sft';
  modelId: string;
  steps: number;
  /** When set, the job fails with this message after its first gradient step. */
  failure: string | undefined;
  metrics: (step: number) => Record<string, number>;
  dataUrl?: string;
}

/** A cursor page over a list of items with ids, as the training service pages (`after` is an id). */
export function paginate<T extends { id: string }>(items: T[], after: string | null, limit: number, what: string): Page<T> {
  let start = 0;
  if (after) {
    const index = items.findIndex((item) => item.id === after);
    if (index === -1) {
      throw new HttpError(422, [{ loc: ['query', 'after'], msg: `"${after}" is not the id of a known ${what}`, type: 'value_error' }]);
    }
    start = index + 1;
  }
  const data = items.slice(start, start + limit);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? '',
    last_id: data.at(-1)?.id ?? '',
    has_more: start + limit < items.length,
  };
}

/**
 * A stand-in for the training service: models with checkpoints, and RL/SFT jobs that move through
 * `training_started` → `gradient_step` × N → `training_ended` (or `training_failed`) on a timer, one event
 * every `stepMs`, writing one checkpoint per gradient step.
 */
export class TrainingSimulator {
  private readonly models = new Map<string, ModelState>();
  private readonly jobs = new Map<string, JobState>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly stepMs: number) {}

  /** Creates a model (or returns the existing one when asked); it starts with the untrained step 0. */
  createModel(req: { entity: string; project: string; name: string; base_model: string; return_existing: boolean }): ModelResponse {
    const existing = [...this.models.values()].find(
      (m) => m.entity === req.entity && m.project === req.project && m.name === req.name,
    );
    if (existing) {
      if (!req.return_existing) {
        throw new HttpError(409, `A model named "${req.name}" already exists in ${req.entity}/${req.project}; pass return_existing: true to reuse it.`);
      }
      return publicModel(existing);
    }
    const model: ModelState = {
      id: randomUUID(),
      entity: req.entity,
      project: req.project,
      name: req.name,
      base_model: req.base_model,
      run_id: `run-${randomUUID().slice(0, 8)}`,
      checkpoints: [{ id: randomUUID(), step: 0, metrics: {} }],
    };
    this.models.set(model.id, model);
    return publicModel(model);
  }

  /** A model, or a 404 naming it. */
  model(id: string): ModelState {
    const model = this.models.get(id);
    if (!model) throw new HttpError(404, `Model ${id} not found`);
    return model;
  }

  /** Deletes a model with its checkpoints and run. */
  deleteModel(id: string): { model_id: string; deleted_checkpoints: number; deleted_run: boolean } {
    const model = this.model(id);
    this.models.delete(id);
    return { model_id: id, deleted_checkpoints: model.checkpoints.length, deleted_run: true };
  }

  /** Lists a model's checkpoints by step. */
  listCheckpoints(id: string, after: string | null, limit: number, order: 'asc' | 'desc'): Page<CheckpointResponse> {
    const sorted = [...this.model(id).checkpoints].sort((a, b) => (order === 'asc' ? a.step - b.step : b.step - a.step));
    return paginate(sorted, after, limit, 'checkpoint');
  }

  /** Deletes checkpoints by step; steps that do not exist are reported back. */
  deleteCheckpoints(id: string, steps: number[]): { deleted_count: number; not_found_steps: number[] } {
    const model = this.model(id);
    const present = new Set(model.checkpoints.map((c) => c.step));
    const notFound = steps.filter((s) => !present.has(s));
    const before = model.checkpoints.length;
    model.checkpoints = model.checkpoints.filter((c) => !steps.includes(c.step));
    return { deleted_count: before - model.checkpoints.length, not_found_steps: notFound };
  }

  /** Starts a job; events follow on the timer. */
  createJob(plan: JobPlan): { id: string } {
    this.model(plan.modelId);
    if (plan.dataUrl) {
      const same = [...this.jobs.values()].find((j) => j.model_id === plan.modelId && j.dataUrl === plan.dataUrl);
      if (same) return { id: same.id };
    }
    const job: JobState = {
      id: randomUUID(),
      model_id: plan.modelId,
      kind: plan.kind,
      status: 'queued',
      created_at: new Date().toISOString(),
      training_start: null,
      training_end: null,
      error_message: null,
      events: [],
      steps: plan.steps,
      failure: plan.failure,
      metrics: plan.metrics,
      dataUrl: plan.dataUrl,
    };
    this.jobs.set(job.id, job);
    this.schedule(job, 0);
    return { id: job.id };
  }

  /** A job's public state, or a 404. */
  job(id: string): TrainingJobResponse {
    const job = this.jobs.get(id);
    if (!job) throw new HttpError(404, `Training job ${id} not found`);
    const { events: _e, steps: _s, failure: _f, metrics: _m, dataUrl: _d, ...pub } = job;
    return pub;
  }

  /** A page of a job's events, oldest first. */
  events(id: string, after: string | null, limit: number): Page<TrainingJobEvent> {
    const job = this.jobs.get(id);
    if (!job) throw new HttpError(404, `Training job ${id} not found`);
    return paginate(job.events, after, limit, 'event');
  }

  /** Stops every pending timer (jobs stay where they are). */
  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private schedule(job: JobState, tick: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.advance(job, tick)) this.schedule(job, tick + 1);
    }, this.stepMs);
    timer.unref();
    this.timers.add(timer);
  }

  private emit(job: JobState, type: TrainingJobEventType, data: Record<string, unknown>): void {
    job.events.push({ id: randomUUID(), type, data });
  }

  private end(job: JobState, status: 'succeeded' | 'failed', message?: string): false {
    job.status = status;
    job.training_end = new Date().toISOString();
    if (status === 'failed') {
      job.error_message = message ?? 'Training failed with an unknown error';
      this.emit(job, 'training_failed', { error_message: job.error_message });
    } else {
      this.emit(job, 'training_ended', {});
    }
    return false;
  }

  // One event per tick; returns whether the job continues.
  private advance(job: JobState, tick: number): boolean {
    if (tick === 0) {
      job.status = 'running';
      job.training_start = new Date().toISOString();
      this.emit(job, 'training_started', { num_sequences: job.steps });
      return true;
    }
    const model = this.models.get(job.model_id);
    if (!model) return this.end(job, 'failed', `Model ${job.model_id} was deleted while the job ran`);
    if (job.failure !== undefined && tick > 1) return this.end(job, 'failed', job.failure);
    if (tick > job.steps) return this.end(job, 'succeeded');
    const metrics = job.metrics(tick);
    this.emit(job, 'gradient_step', metrics);
    const step = Math.max(...model.checkpoints.map((c) => c.step), 0) + 1;
    model.checkpoints.push({ id: randomUUID(), step, metrics });
    return true;
  }
}

function publicModel(model: ModelState): ModelResponse {
  const { checkpoints: _c, ...pub } = model;
  return pub;
}
