import {
  type ConnectionOptions,
  ENV,
  keyInClearWarning,
  type ProjectRef,
  pick,
  OPENAI_SPELLINGS,
  refuseOthersSpelling,
  resolveConnection,
  resolveServiceUrl,
  unauthenticatedHint,
} from '../config/index.js';
import { checkLogLevel, reportOnce } from '../diagnostics.js';
import { HttpCore } from './core/http.js';
import type { RetryEvent } from './core/types.js';
import type { BackoffOptions } from './core/retry.js';
import { type ChatTracingOption, InferenceClient } from './inference/index.js';
import { checkProjectHeader } from './inference/project-header.js';
import { TraceClient } from './trace/trace-client.js';
import { TrainingClient } from './training/index.js';
import { LazyAgent } from './core/undici.js';

/** Options of {@link Client}. Each service address falls back to its environment variable, then to `weft dev`. */
export interface ClientOptions extends ConnectionOptions {
  /**
   * Inference service address, ending in `/v1`. Env: `WEFT_INFERENCE_BASE_URL`. Default: `{baseUrl}/v1` when the
   * trace service is on this machine (a `weft dev` serves all three), else `http://127.0.0.1:4780/v1`.
   */
  inferenceBaseUrl?: string | undefined;
  /**
   * Training service address, ending in `/v1`. Env: `WEFT_TRAINING_BASE_URL`. Default: `{baseUrl}/training/v1` when
   * the trace service is on this machine (where `weft dev` serves it), else `http://127.0.0.1:4780/training/v1`.
   */
  trainingBaseUrl?: string | undefined;
  /** Per-attempt timeout in milliseconds (wait for headers, then silence mid-body). Default 60 000. */
  timeoutMs?: number | undefined;
  /** Retries of a failed idempotent request. Default 2. */
  maxRetries?: number | undefined;
  /** Backoff between retries. */
  backoff?: BackoffOptions | undefined;
  /** Headers sent to every service. */
  headers?: Record<string, string> | undefined;
  /** The one name of the inference service's project header. Default: both `Compat-Project` and `OpenAI-Project`. */
  inferenceProjectHeader?: string | undefined;
  /** Called before each retry, e.g. to log it; never receives headers. */
  onRetry?: ((event: RetryEvent) => void) | undefined;
  /**
   * How the chat calls of `inference` and `training` are traced: `false` for not at all, or the options of
   * the `openai` instrumentation. Default: traced, options from the environment.
   */
  tracing?: ChatTracingOption | undefined;
}

/**
 * The typed client of the three services, sharing one keep-alive connection pool:
 * `trace` (calls, objects, tables, feedback, evaluations…), `inference` (chat completions, models) and
 * `training` (models, checkpoints, RL/SFT jobs). Call `close()` when done so the process can exit promptly.
 *
 * @example
 * const client = new Client({ project: 'team/proj' }); // key from WEFT_API_KEY, address from WEFT_BASE_URL
 * for await (const call of client.trace.calls.streamQuery({ limit: 10 })) console.log(call.op_name);
 * await client.close();
 */
export class Client {
  /** The trace service. */
  readonly trace: TraceClient;
  /** The inference service. */
  readonly inference: InferenceClient;
  /** The training service. */
  readonly training: TrainingClient;
  /** The project every request is scoped to. */
  readonly project: ProjectRef;
  /** The resolved base URLs, for display (they hold no secret). */
  readonly baseUrls: { readonly trace: string; readonly inference: string; readonly training: string };

  private readonly agent: LazyAgent;
  #closed: Promise<void> | undefined;
  private readonly cores: HttpCore[];

  constructor(options: ClientOptions = {}) {
    // WEFT_LOG_LEVEL sets the level of the warnings below while the app has no diagnostic logger.
    checkLogLevel();
    refuseOthersSpelling(options, OPENAI_SPELLINGS);
    const connection = resolveConnection(options);
    this.project = connection.project;
    this.baseUrls = {
      trace: connection.baseUrl,
      inference: resolveServiceUrl(options.inferenceBaseUrl, 'inferenceBaseUrl', ENV.inferenceBaseUrl, process.env, connection.baseUrl),
      training: resolveServiceUrl(options.trainingBaseUrl, 'trainingBaseUrl', ENV.trainingBaseUrl, process.env, connection.baseUrl),
    };
    for (const url of new Set(Object.values(this.baseUrls))) {
      const inClear = keyInClearWarning(url, connection.apiKey);
      if (inClear) reportOnce(`key-in-clear ${new URL(url).host}`, inClear);
    }
    // One keep-alive pool for the three services (often the same host); made once the options are valid.
    this.agent = new LazyAgent();
    const core = (baseUrl: string) =>
      new HttpCore({
        baseUrl,
        apiKey: connection.apiKey,
        dispatcher: this.agent,
        headers: options.headers,
        timeoutMs: options.timeoutMs,
        maxRetries: options.maxRetries,
        backoff: options.backoff,
        onRetry: options.onRetry,
        unauthenticatedHint: (sent) => unauthenticatedHint(sent),
      });
    const traceCore = core(this.baseUrls.trace);
    const inferenceCore = core(this.baseUrls.inference);
    const trainingCore = core(this.baseUrls.training);
    this.cores = [traceCore, inferenceCore, trainingCore];
    this.trace = new TraceClient(traceCore, { project: connection.project });
    // The project header is sent only when a project was configured: the local fallback project means
    // nothing to a remote inference service, which would refuse it.
    const configuredProject = pick(options.project, ENV.project) === undefined ? undefined : connection.project.id;
    // Checked here, as the inference client checks it (only when it is used), so that a bad one is said under the
    // name the app gave it, not the inference client's `projectHeader`.
    if (configuredProject !== undefined) checkProjectHeader(options.inferenceProjectHeader, 'inferenceProjectHeader');
    this.inference = new InferenceClient(inferenceCore, {
      project: configuredProject,
      projectHeader: options.inferenceProjectHeader,
      tracing: options.tracing,
    });
    this.training = new TrainingClient(trainingCore, { tracing: options.tracing });
  }

  /** What `JSON.stringify` shows: the project and the addresses; the API key is never part of a client's printout. */
  toJSON(): { project: string; baseUrls: Client['baseUrls'] } {
    return { project: this.project.id, baseUrls: this.baseUrls };
  }

  /** What `console.log` and `util.inspect` show: the same as {@link Client.toJSON}, not the resource tree. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `Client ${JSON.stringify(this.toJSON())}`;
  }

  /**
   * Ends what is still in flight (requests, streams being read or left open, waits between retries, job
   * watches), then closes the connections of all three services; it settles at once rather than waiting for
   * them. What was in flight, and requests after this, fail with a `WeftConnectionError` (code
   * `WEFT_CLIENT_CLOSED`); closing again is harmless.
   */
  close(): Promise<void> {
    this.#closed ??= Promise.all(this.cores.map((c) => c.close())).then(() => this.agent.close());
    return this.#closed;
  }
}
