import { WeftServerError } from '../core/errors.js';
import type { HttpCore } from '../core/http.js';
import { forwardCallOptions } from '../core/call-options.js';
import type { CallOptions } from '../core/types.js';
import { ChatCompletions, type ChatRequestOptions } from '../inference/chat/completions.js';
import { type ChatTracingOption, resolveChatTracing } from '../inference/chat/trace-chat.js';
import { TrainingJobs } from './jobs.js';
import { TrainingModels } from './models.js';
import type { TrainingChatParams } from './types/chat.js';
import type { HealthResponse, SystemCheckResponse } from './types/health.js';
import { isObjectRecord } from '../../is-object-record.js';

/** Options of a chat call to the training service. */
export interface TrainingChatRequestOptions extends ChatRequestOptions {
  /** Send to `/chat/completions/` (the service serves both paths) instead of `/chat/completions`. */
  trailingSlash?: boolean | undefined;
}

/** Options of {@link TrainingClient}. */
export interface TrainingClientOptions {
  /** How chat calls are traced, as for the inference client; `false` for no spans. */
  tracing?: ChatTracingOption | undefined;
}

/** The result of `systemCheck()`: whether every check passed, and what each reported. */
export interface SystemCheckResult {
  /** False when the service answered 503 (a check failed). */
  healthy: boolean;
  checks: SystemCheckResponse;
}

/**
 * The training service (`WEFT_TRAINING_BASE_URL`, ending in `/v1`): models, checkpoints, RL and SFT jobs and
 * their events, health checks, and chat completions against trained checkpoints. Usually reached as
 * `client.training` of a `Client`.
 *
 * @example
 * const model = await client.training.models.create({ project: 'p', name: 'm', base_model: 'OpenPipe/Qwen3-14B-Instruct' });
 * const job = await client.training.jobs.createSft({ model_id: model.id, training_data_url: 'wandb-artifact:///e/p/data:v0' });
 * const outcome = await client.training.jobs.watch(job.id);
 */
export class TrainingClient {
  /** `chat.completions.create()`, the same format as the inference service's. */
  readonly chat: { readonly completions: ChatCompletions<TrainingChatParams, TrainingChatRequestOptions> };
  /** Models and their checkpoints. */
  readonly models: TrainingModels;
  /** RL and SFT jobs, their events, and `watch()`. */
  readonly jobs: TrainingJobs;

  /** @param core the HTTP core for the training service's base URL. */
  constructor(
    private readonly core: HttpCore,
    options: TrainingClientOptions = {},
  ) {
    this.chat = {
      completions: new ChatCompletions<TrainingChatParams, TrainingChatRequestOptions>(core, {
        path: (callOptions) => (callOptions.trailingSlash ? '/chat/completions/' : '/chat/completions'),
        tracing: resolveChatTracing(options.tracing),
      }),
    };
    this.models = new TrainingModels(core);
    this.jobs = new TrainingJobs(core);
  }

  /** `GET /health`. The body is not documented and is returned as sent. */
  health(options: CallOptions = {}): Promise<HealthResponse> {
    return this.core.request<HealthResponse>({ method: 'GET', path: '/health', ...forwardCallOptions(options) });
  }

  /**
   * `GET /system-check`: the API, database and queue checks. The service answers 503 when a check fails; that
   * is reported as `healthy: false` with the checks, not thrown. Not retried by default, so it tells the
   * state now.
   */
  async systemCheck(options: CallOptions = {}): Promise<SystemCheckResult> {
    try {
      // `maxRetries: undefined` is "not given", like an absent one: the default here is 0, not the core's 2.
      const call = forwardCallOptions({ ...options, maxRetries: options.maxRetries ?? 0 });
      const checks = await this.core.request<SystemCheckResponse>({ method: 'GET', path: '/system-check', ...call });
      return { healthy: true, checks: checks ?? {} };
    } catch (error) {
      if (error instanceof WeftServerError && error.status === 503 && isObjectRecord(error.body)) {
        return { healthy: false, checks: error.body as SystemCheckResponse };
      }
      throw error;
    }
  }
}
