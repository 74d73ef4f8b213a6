import type { DiagLogger } from '@opentelemetry/api';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import type { Sampler, SpanLimits, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ClientOptions } from '../client/client.js';
import type { ConnectionOptions } from '../config/index.js';
import type { ChatTracingConfig } from '../instrumentation/index.js';

/** The options of register() that configure weft's default instrumentations (see weftInstrumentations()). */
export const CHAT_TRACING_OPTIONS = ['captureContent', 'redactContent', 'maxMessageLength', 'maxAttributeLength', 'requestStreamUsage'] as const;

/**
 * Batching of the export pipeline. Defaults suit an LLM app: few, large spans, exported within a second. A setting
 * not given falls back to OTel's standard variable when it is set (`OTEL_BSP_*`), then to weft's default.
 */
export interface BatchOptions {
  /**
   * Most spans held in memory while waiting for export; past it, new spans are dropped and counted.
   * Env: `OTEL_BSP_MAX_QUEUE_SIZE`. Default 2048.
   */
  maxQueueSize?: number | undefined;
  /** Most spans in one export request. Env: `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`. Default 512. */
  maxExportBatchSize?: number | undefined;
  /** How long a span may wait before its batch is sent, in ms. Env: `OTEL_BSP_SCHEDULE_DELAY`. Default 1000. */
  scheduledDelayMillis?: number | undefined;
  /** How long one export request may take, in ms. Env: `OTEL_BSP_EXPORT_TIMEOUT`. Default 10000. */
  exportTimeoutMillis?: number | undefined;
  /** Most spans kept for another attempt after an export failed for a passing reason. Default 2048. */
  maxRetrySpans?: number | undefined;
}

/** Options of {@link weftSpanProcessor}: where and how spans are exported. */
export interface ExportOptions extends ConnectionOptions {
  /**
   * Extra headers on every export request (e.g. for a proxy). They never reach a span or a log line. Not
   * `project_id`, which weft sets from `project`, nor `Authorization` beside an `apiKey` (without one, an
   * `Authorization` of the app's own is sent: a service that wants another scheme).
   */
  headers?: Record<string, string> | undefined;
  /** Batch settings. */
  batch?: BatchOptions | undefined;
  /** Compress export bodies with gzip. Default false, until the trace service is known to accept it. */
  compression?: 'gzip' | 'none' | undefined;
  /**
   * Longest wait of a flush, in ms: of `forceFlush()` and `shutdown()`, and at exit. A positive integer. Default 3000.
   * Past it weft stops waiting and lets go of its requests: `forceFlush()` keeps the spans not sent for the next
   * attempt, `shutdown()` and the end of the process count them as dropped.
   */
  exitFlushTimeoutMillis?: number | undefined;
  /**
   * Flush at normal exit (`beforeExit`), at `process.exit()`, on SIGTERM/SIGINT, and before an uncaught exception
   * ends the process, until `shutdown()`. Default true. Exit codes and signals are unchanged. With false, weft hooks
   * none of it: spans not flushed by then are lost.
   */
  flushOnExit?: boolean | undefined;
}

/**
 * Options of {@link register}. Every option falls back to its environment variable, then to the local dev service.
 *
 * @example
 * register({ project: 'my-team/my-project', serviceName: 'support-bot' });
 * register({ project: 'my-team/my-project', captureContent: 'output' }); // no prompts on the spans
 */
export interface RegisterOptions extends ExportOptions, Pick<ChatTracingConfig, (typeof CHAT_TRACING_OPTIONS)[number]> {
  /** `service.name` of the resource. Env: `OTEL_SERVICE_NAME`. Default: OTel's, `unknown_service:node`. */
  serviceName?: string | undefined;
  /**
   * Extra resource attributes; `OTEL_RESOURCE_ATTRIBUTES` is honoured too (these win). Not `wandb.entity` or
   * `wandb.project`, which route spans: they come from `project`.
   */
  resourceAttributes?: Record<string, string | number | boolean> | undefined;
  /**
   * Instrumentations to enable. Default: all of weft's (the `openai` package), recording chat calls as
   * `captureContent`, `redactContent`, `maxMessageLength`, `maxAttributeLength` and `requestStreamUsage` say. Pass
   * `[]` for none, or your own list (it replaces the default; those options then go to `weftInstrumentations()`).
   */
  instrumentations?: Instrumentation[] | undefined;
  /** Further span processors, run before weft's exporter (e.g. to add attributes). */
  spanProcessors?: SpanProcessor[] | undefined;
  /**
   * Which spans are recorded, an OTel `Sampler` (e.g. `new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.1) })`).
   * Env: `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`, as OTel reads them. Default: always on, following the parent.
   */
  sampler?: Sampler | undefined;
  /**
   * OTel's span limits (`attributeValueLengthLimit`, `attributeCountLimit`, …), each a whole number. Env:
   * `OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT` and the others, as OTel reads them. weft's own contents (messages, op
   * inputs and outputs) are shortened to fit `attributeValueLengthLimit`, keeping their JSON valid.
   */
  spanLimits?: SpanLimits | undefined;
  /**
   * Register the provider, context manager and propagators globally. Default true. With false, use
   * `handle.tracerProvider.getTracer()` yourself; instrumentations still use this provider.
   */
  global?: boolean | undefined;
  /**
   * Where weft and OTel report problems (OTel's diagnostic logger), at the level of `WEFT_LOG_LEVEL`, else
   * `OTEL_LOG_LEVEL`, else warn. Default: the console. Pass `false` to keep a logger you set with `diag.setLogger`.
   */
  logger?: DiagLogger | false | undefined;
}

/** Every option of {@link weftSpanProcessor}, to refuse any other (a misspelt one would go unread). */
export const EXPORT_OPTION_NAMES = Object.keys({
  apiKey: true,
  project: true,
  baseUrl: true,
  headers: true,
  batch: true,
  compression: true,
  exitFlushTimeoutMillis: true,
  flushOnExit: true,
} satisfies Record<keyof ExportOptions, true>);

/** Every option of {@link register}. */
export const REGISTER_OPTION_NAMES = Object.keys({
  ...Object.fromEntries(EXPORT_OPTION_NAMES.map((name) => [name, true])),
  ...Object.fromEntries(CHAT_TRACING_OPTIONS.map((name) => [name, true])),
  serviceName: true,
  resourceAttributes: true,
  instrumentations: true,
  spanProcessors: true,
  sampler: true,
  spanLimits: true,
  global: true,
  logger: true,
} satisfies Record<Exclude<keyof RegisterOptions, keyof ExportOptions | (typeof CHAT_TRACING_OPTIONS)[number]>, true>);

/**
 * The options of `new Client()` that are not export options. One config object often serves both the client and
 * `register()` (or `weftSpanProcessor()`), which accept these rather than refuse them as unknown; `register()`
 * reads `inferenceBaseUrl` and `trainingBaseUrl` (where chat tracing finds the platform's services).
 */
export const CLIENT_ONLY_OPTION_NAMES = Object.keys({
  inferenceBaseUrl: true,
  trainingBaseUrl: true,
  timeoutMs: true,
  maxRetries: true,
  backoff: true,
  inferenceProjectHeader: true,
  onRetry: true,
  tracing: true,
} satisfies Record<Exclude<keyof ClientOptions, keyof ExportOptions>, true>);

/** Every setting of {@link BatchOptions}. */
export const BATCH_OPTION_NAMES = Object.keys({
  maxQueueSize: true,
  maxExportBatchSize: true,
  scheduledDelayMillis: true,
  exportTimeoutMillis: true,
  maxRetrySpans: true,
} satisfies Record<keyof BatchOptions, true>);

/** Every setting of OTel's `SpanLimits`. */
export const SPAN_LIMIT_NAMES = Object.keys({
  attributeValueLengthLimit: true,
  attributeCountLimit: true,
  linkCountLimit: true,
  eventCountLimit: true,
  attributePerEventCountLimit: true,
  attributePerLinkCountLimit: true,
} satisfies Record<keyof SpanLimits, true>);
