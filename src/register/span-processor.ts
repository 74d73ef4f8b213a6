import type { Context } from '@opentelemetry/api';
import { BatchSpanProcessor, type ReadableSpan, type Span, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  apiKeyToHide,
  type Connection,
  devServiceHint,
  ENV,
  joinUrl,
  keyInClearWarning,
  kindOf,
  refuseUnknownOptions,
  resolveConnection,
  unauthenticatedHint,
  WeftConfigError,
  withKeyHidden,
} from '../config/index.js';
import { USER_AGENT } from '../version.js';
import { BoundedBatchProcessor } from './bounded-batch-processor.js';
import { checkLogLevel, reportOnce } from '../diagnostics.js';
import { rememberCredentialHeaders, rememberSecret } from '../secrets.js';
import { createExportStats, type ExportStats } from './export-stats.js';
import { CLIENT_ONLY_OPTION_NAMES, EXPORT_OPTION_NAMES, type ExportOptions } from './options.js';
import { checkCompression, checkExportHeaders, exportHeaders, resolveBatch } from './export-options.js';
import { encodeTraceExport } from '../otlp/encode.js';
import { cannotSendSynchronously, type LastSendTarget, sendSynchronously } from './last-send.js';
import { createOtlpExporter, readExportResponse } from './otlp-exporter.js';
import { isConnectionFailure } from './otlp-transport.js';
import { resolveFlushTimeout } from './flush-timeout.js';
import { pipelineFlushing, resolveFlushOnExit } from './pipeline-flushing.js';
import { ResilientExporter } from './resilient-exporter.js';
import { sdkDisabled } from './sdk-disabled.js';
import { endUnfinished } from '../tracing/unfinished.js';
import { existingRegistration } from './registration.js';

/** The path of the trace service's OTLP ingestion, below its base URL. */
export const OTLP_TRACES_PATH = '/otel/v1/traces';

/** A span processor that exports to the trace service, with its counters. */
export interface WeftSpanProcessor extends SpanProcessor {
  /** Counters of what was exported and dropped. */
  readonly stats: Readonly<ExportStats>;
  /** The OTLP URL spans are exported to, `{baseUrl}/otel/v1/traces`. */
  readonly endpoint: string;
  /** The project spans are routed to. */
  readonly project: string;
  /** How to reach the service when it does not answer (a hint for failure reports, or ''). */
  readonly hint: string;
}

/**
 * Builds weft's export pipeline as one span processor: a counted, bounded batch queue in front of OTel's
 * `BatchSpanProcessor`, and the OTLP/protobuf exporter to `{baseUrl}/otel/v1/traces`. `register()` uses it; add
 * it to your own provider when you already have one (NodeSDK, another vendor's setup).
 *
 * Its `forceFlush()` and `shutdown()` wait at most `exitFlushTimeoutMillis` (3 s), as `register()`'s handle does:
 * past it, a flush keeps the spans not sent for the next attempt, a shutdown counts them as dropped. Neither rejects.
 *
 * It flushes at exit as `register()` does, whether or not the app shuts its provider down: from its creation until
 * its `shutdown()`, at normal exit, at `process.exit()`, on SIGTERM/SIGINT and before an uncaught exception ends the
 * process, which ends as it would have without weft. `flushOnExit: false` hooks none of it.
 *
 * Project routing also needs the resource attributes `wandb.entity` and `wandb.project`; `register()` sets them,
 * and `weftResourceAttributes()` gives them for your own resource.
 *
 * @example
 * const sdk = new NodeSDK({ spanProcessors: [weftSpanProcessor({ project: 'team/app' })] });
 */
export function weftSpanProcessor(options: ExportOptions = {}): WeftSpanProcessor {
  // The key is read first: no configuration error may quote it (a key pasted into another variable).
  return withKeyHidden(apiKeyToHide(options), () => createSpanProcessor(options));
}

function createSpanProcessor(options: ExportOptions): WeftSpanProcessor {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new WeftConfigError('options', undefined, `weft: the options of weftSpanProcessor() must be an object, got ${kindOf(options)}.`);
  }
  refuseUnknownOptions(options, EXPORT_OPTION_NAMES, 'weftSpanProcessor()', '', CLIENT_ONLY_OPTION_NAMES);
  checkLogLevel();
  const flushTimeout = resolveFlushTimeout(options.exitFlushTimeoutMillis);
  // Under OTEL_SDK_DISABLED the provider (NodeSDK's) never shuts it down: hooks would stay for the whole process.
  const flushOnExit = resolveFlushOnExit(options.flushOnExit) && !sdkDisabled();
  const pipeline = exportPipeline(resolveConnection(options), options);
  const flushing = pipelineFlushing(pipeline, { flushTimeout, flushOnExit, flushSpans: () => pipeline.forceFlush() });
  return {
    stats: pipeline.stats,
    endpoint: pipeline.endpoint,
    project: pipeline.project,
    hint: pipeline.hint,
    onStart: (span, parent) => pipeline.onStart(span, parent),
    onEnd: (span) => pipeline.onEnd(span),
    forceFlush: () => flushing.forceFlush(),
    shutdown() {
      // As register()'s handle does: a call still running (a stream half-read) is sent as it stands, not lost. Not
      // while register() traces the process: its calls are its own, and may well run on after this provider stops.
      if (!existingRegistration()) endUnfinished("weft's span processor was shut down");
      return flushing.shutdown(() => pipeline.shutdown());
    },
  };
}

/** The export pipeline, with what the flushes of `register()` and `weftSpanProcessor()` need of it. */
export interface ExportPipeline extends WeftSpanProcessor {
  /** Stops open export requests from keeping the process alive (weft gave up waiting for them at exit). */
  releaseConnections(): void;
  /** Whether spans wait for a retry or an export is in flight, whether or not spans ended since. */
  hasWork(): boolean;
  /** How many spans wait for a retry (the service failed or asked to wait). */
  waitingSpans(): number;
  /** Counts every span not yet exported (queued, held for a retry, in flight) as dropped: the process is ending. */
  dropUnsent(): void;
  /**
   * As the process ends (nothing asynchronous will run again), sends every span not yet exported, synchronously,
   * waiting at most `timeoutMs` (see {@link sendSynchronously}); what it could not send is left to
   * {@link ExportPipeline.dropUnsent}. Not made where it cannot be done safely (not plain Node), nor while the
   * service is known to hang or asked to wait.
   */
  lastSend(timeoutMs: number): void;
  /**
   * Ends a shutdown that gave up waiting: every span not yet exported is counted as dropped, and the connections
   * are closed, open requests included, so that nothing of weft's keeps the process alive.
   */
  abandon(): void;
  /**
   * Whether an export request whose connection failed (refused, reset: nobody listens) is tried again after a pause
   * (1 s, then longer), as it is while the app runs. Not as the pipeline ends (a flush at exit, a shutdown): a service
   * that is not there (`weft dev` not started) would hold the end for seconds, for nothing; what failed goes with the
   * last send, at once. A service that answers (429 with a Retry-After, 503) is still waited for, within the flush
   * timeout. Allowed again after an exit flush (an app may live on after it).
   */
  retryFailedConnections(allowed: boolean): void;
  /** A mark to give {@link ExportPipeline.lastAttempt}, taken when a flush starts. */
  failureMark(): number;
  /**
   * After a flush before the end (at exit), gives the spans kept for a retry their attempt even from a service
   * known to hang (a flush otherwise keeps them for later), unless it failed again since `mark`.
   */
  lastAttempt(mark: number): Promise<void>;
}

/**
 * {@link weftSpanProcessor} for a connection already resolved (register() resolves it once for everything), with
 * no flush timeout or exit hooks of its own: {@link pipelineFlushing} adds them, around the pipeline alone or, for
 * register(), its whole provider.
 */
export function exportPipeline(connection: Connection, options: ExportOptions): ExportPipeline {
  // First, so that no warning below can quote it.
  rememberSecret(connection.apiKey, true);
  const batch = resolveBatch(options.batch);
  const extraHeaders = checkExportHeaders(options.headers, connection.apiKey !== undefined);
  // Kept out of every span and log line from now on, whoever set the pipeline up (register(), or an app's NodeSDK):
  // the API key, and a proxy's or gateway's credential among the headers.
  rememberCredentialHeaders(extraHeaders, true);
  const url = joinUrl(connection.baseUrl, OTLP_TRACES_PATH);
  checkCompression(options.compression);
  const host = new URL(url).host;
  const hint = devServiceHint(connection.baseUrl);
  const inClear = keyInClearWarning(url, connection.apiKey);
  // Once per host, whoever sends there (register(), a processor, the client): the same warning twice says nothing more.
  if (inClear) reportOnce(`key-in-clear ${host}`, inClear);
  const stats = createExportStats();
  let retryingConnections = true;
  const headers = exportHeaders(connection, extraHeaders);
  const gzip = options.compression === 'gzip';
  const otlp = createOtlpExporter(
    {
      url,
      headers,
      timeoutMillis: batch.exportTimeoutMillis,
      gzip,
      userAgent: USER_AGENT,
      mayRetry: (error) => !exporter.recovering && (retryingConnections || !isConnectionFailure(error)),
    },
    (rejected, message) => {
      exporter.noteRejected(rejected);
      reportPartial(rejected, message);
    },
  );
  const reportPartial = (rejected: number, message: string) =>
    reportOnce(`export-partial ${host}`, `${host} refused ${rejected} span(s): ${message.slice(0, 300)}`);
  // As the exporter sends them: the API key among the headers, which only the child's environment carries.
  const lastSendTarget: LastSendTarget = {
    url,
    headers: { ...Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined)), 'Content-Type': 'application/x-protobuf' },
    gzip,
    userAgent: USER_AGENT,
  };
  const maxExportBatchSize = Math.min(batch.maxExportBatchSize, batch.maxQueueSize);
  /**
   * Sends `spans` now, in requests no larger than a batch (one request of everything could be refused for its size),
   * within `timeoutMs` in all. Returns how many were not taken: those the service refused, and those of the requests
   * that failed or never went, once the first was taken; undefined if none was.
   */
  const sendNow = (spans: ReadableSpan[], timeoutMs: number): number | undefined => {
    // Left uncounted here: dropped with the rest, silently, as they always were where this cannot be done.
    if (cannotSendSynchronously() !== undefined) return undefined;
    const requests: ReadableSpan[][] = [];
    for (let start = 0; start < spans.length; start += maxExportBatchSize) requests.push(spans.slice(start, start + maxExportBatchSize));
    const outcome = sendSynchronously(requests.map(encodeTraceExport), lastSendTarget, timeoutMs);
    let refused = 0;
    outcome.answers.forEach((answer, index) => {
      readExportResponse(answer, (rejected, message) => {
        refused += Math.min(rejected, requests[index]!.length);
        reportPartial(rejected, message);
      });
    });
    if (outcome.why === undefined) return refused;
    const taken = requests.slice(0, outcome.answers.length).reduce((count, request) => count + request.length, 0);
    reportOnce(
      `exit-last-send ${url}`,
      `could not send ${spans.length - taken} span(s) to ${url} as the process ended (${outcome.why}); they are dropped.${hint}`,
    );
    return taken === 0 ? undefined : refused + spans.length - taken;
  };
  const ownAuthorization = connection.apiKey === undefined && Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
  const refusedHint = (status: number | undefined): string => {
    if (status === 401) {
      return ownAuthorization ? ' The Authorization header given in the `headers` option was not accepted.' : unauthenticatedHint(connection.apiKey !== undefined);
    }
    if (status === 404) return ` Nothing takes spans at ${url}: check the \`baseUrl\` option or ${ENV.baseUrl}.`;
    return ` Check the API key (the \`apiKey\` option or ${ENV.apiKey}) and the project ${connection.project.id} (the \`project\` option or ${ENV.project}).`;
  };
  const exporter = new ResilientExporter(otlp, stats, host, batch.maxRetrySpans, maxExportBatchSize, batch.exportTimeoutMillis, hint, refusedHint);
  const bsp = new BatchSpanProcessor(exporter, {
    maxQueueSize: batch.maxQueueSize,
    maxExportBatchSize,
    scheduledDelayMillis: batch.scheduledDelayMillis,
    // Later than the request's own timeout, so that every export settles through weft's accounting.
    exportTimeoutMillis: batch.exportTimeoutMillis + 1000,
  });
  const bounded = new BoundedBatchProcessor(bsp, stats, batch.maxQueueSize);
  return {
    stats,
    endpoint: url,
    project: connection.project.id,
    hint,
    onStart: (span: Span, parent: Context) => bounded.onStart(span, parent),
    onEnd: (span: ReadableSpan) => bounded.onEnd(span),
    // The batch processor neither waits for the export its timer started nor flushes its exporter: a flush waits
    // for every export in flight, and spans kept for a retry get their attempt here.
    forceFlush: async () => {
      const since = exporter.failureMark();
      await Promise.all([bounded.forceFlush(), exporter.settled()]);
      // The batch processor may have been answered before its exports' requests settled (see answerWithin).
      await exporter.settled();
      await exporter.retryPending(since);
    },
    // The batch processor shuts its exporter down only when its last flush succeeded: when that flush timed out,
    // the spans still kept or in flight must be counted, and the exporter's sockets closed, all the same.
    shutdown: async () => {
      try {
        await bounded.shutdown();
      } finally {
        await exporter.shutdown();
      }
    },
    releaseConnections: () => {
      exporter.stopWaiting();
      otlp.releaseConnections();
    },
    hasWork: () => exporter.hasWork(),
    waitingSpans: () => exporter.waiting,
    dropUnsent: () => {
      bounded.dropQueued();
      exporter.dropUnsent();
    },
    lastSend: (timeoutMs: number) => {
      if (!exporter.mayLastSend()) return;
      const queued = bounded.queuedSpans();
      if (exporter.sendLast(queued, (spans) => sendNow(spans, timeoutMs))) bounded.forgetQueued(queued);
    },
    retryFailedConnections: (allowed: boolean) => {
      retryingConnections = allowed;
    },
    failureMark: () => exporter.failureMark(),
    lastAttempt: (mark: number) => exporter.retryPending(mark, true),
    abandon: () => {
      bounded.dropQueued();
      exporter.dropUnsent();
      exporter.stopWaiting();
      otlp.closeConnections();
    },
  };
}
