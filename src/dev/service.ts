import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_DEV_HOST, DEFAULT_DEV_PORT, DEFAULT_LOCAL_PROJECT, isLoopbackUrl, describeValue, WeftConfigError } from '../config/index.js';
import { bearerAuth } from './auth.js';
import type { DevContext } from './context.js';
import { chatRoutes } from './inference/chat-routes.js';
import type { DevStores } from './records.js';
import { Router, type Route } from './router.js';
import { notImplementedRoutes } from './spec-paths.js';
import { annotationItemRoutes } from './trace/annotation-items-routes.js';
import { AnnotationQueueData } from './trace/annotation-queues.js';
import { annotationQueueRoutes } from './trace/annotation-queues-routes.js';
import { callUsageRoutes } from './trace/call-usage-routes.js';
import { callRoutes } from './trace/calls-routes.js';
import { CollectionStore } from './trace/collection-store.js';
import { costRoutes } from './trace/costs-routes.js';
import { feedbackRoutes } from './trace/feedback-routes.js';
import { fileRoutes } from './trace/files-routes.js';
import { infoRoutes } from './trace/info-routes.js';
import { objectLabelRoutes } from './trace/object-label-routes.js';
import { LABEL_COLLECTIONS } from './trace/object-labels.js';
import { objectRoutes } from './trace/objects-routes.js';
import { otelRoute } from './trace/otel-route.js';
import { TraceStore } from './trace/store.js';
import { refRoutes } from './trace/refs-routes.js';
import { tableRoutes } from './trace/tables-routes.js';
import { threadRoutes } from './trace/threads-routes.js';
import { v2EvaluationRecordRoutes } from './trace/v2-evaluation-records.js';
import { v2ObjectRoutes } from './trace/v2-object-routes.js';
import { TRAINING_PREFIX, trainingRoutes } from './training/routes.js';
import { TrainingSimulator } from './training/simulator.js';
import { TrainingStore } from './training/store.js';
import { DevWriter } from './writer.js';

/** Options of {@link startDevService}. */
export interface DevServiceOptions {
  /** Port to listen on; `0` picks a free one. Default 4780 (`DEFAULT_DEV_PORT`, the embedded default). */
  port?: number | undefined;
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string | undefined;
  /** When set, every request (except health and version) must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string | undefined;
  /**
   * Append-only JSONL file that keeps the trace data and the training state (models, checkpoints, jobs and
   * their events) across restarts; replayed on start. A job left queued or running by the previous run is
   * failed on start with a `training_failed` event. Default: memory only.
   */
  dataFile?: string | undefined;
  /** How many traces to keep; the oldest are evicted past it (and the log says so). Default 10 000. */
  maxTraces?: number | undefined;
  /**
   * How many records of each kind to keep (feedback; costs; annotation queues; their items; evaluation runs;
   * predictions; scores), across projects; past it the oldest of that kind are evicted, as traces are past
   * `maxTraces`, and the log says so. Objects, tables, files and object aliases and tags are kept until
   * deleted. Default 100 000.
   */
  maxRecords?: number | undefined;
  /** Where operator messages go (evictions, replay); `false` for silence. Default: stderr. */
  log?: ((line: string) => void) | false | undefined;
  /** Milliseconds between a training job's events. Default 300, so a job ends in about two seconds. */
  trainingStepMs?: number | undefined;
  /** Largest request body accepted, in bytes, as sent and (for a compressed OTLP export) decompressed. Default 32 MiB. */
  maxBodyBytes?: number | undefined;
}

/** A running dev service. */
export interface DevService {
  /** Base URL of the trace service, e.g. `http://127.0.0.1:4780`. */
  readonly url: string;
  /** Base URL of the inference service (`${url}/v1`), where the training service is served too (see {@link trainingUrl}). */
  readonly v1Url: string;
  /**
   * Base URL of the training service on its own (`${url}/training/v1`), weft's default for it: there its chat's
   * `/chat/completions` is the training service's with or without the trailing slash, as on the hosted service.
   */
  readonly trainingUrl: string;
  readonly host: string;
  readonly port: number;
  /** Stops listening, ends open connections and training timers, and closes the data file. */
  close(): Promise<void>;
}


function positiveInteger(value: number, option: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new WeftConfigError(option, undefined, `weft dev: option \`${option}\` must be a positive integer, got ${describeValue(value)}.`);
  }
  return value;
}

/**
 * Starts `weft dev` in this process: one HTTP server standing in for the trace service (at the root), the
 * inference service (under `/v1`) and the training service (under `/training/v1`, and `/v1` too), with an offline model and simulated
 * training. For tests, examples and local development; it never leaves 127.0.0.1 unless told to.
 *
 * @example
 * const dev = await startDevService({ port: 0, log: false });
 * process.env.WEFT_BASE_URL = dev.url;
 * // ... run the app ...
 * await dev.close();
 *
 * @throws {WeftConfigError} (the promise rejects with it) for a `port`, `maxTraces` or `maxRecords` out of range;
 * nothing is started then.
 */
export async function startDevService(options: DevServiceOptions = {}): Promise<DevService> {
  const host = options.host ?? DEFAULT_DEV_HOST;
  const port = options.port ?? DEFAULT_DEV_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new WeftConfigError('port', undefined, `weft dev: option \`port\` must be an integer from 0 to 65535, got ${describeValue(port)}.`);
  }
  const maxTraces = positiveInteger(options.maxTraces ?? 10_000, 'maxTraces');
  const maxRecords = positiveInteger(options.maxRecords ?? 100_000, 'maxRecords');
  const log = options.log === false ? () => {} : (options.log ?? ((line: string) => process.stderr.write(`weft dev: ${line}\n`)));

  const store = new TraceStore(maxTraces, maxRecords);
  const collections = new CollectionStore({ maxRecords, unbounded: Object.values(LABEL_COLLECTIONS) });
  const stores: DevStores = { trace: store, training: new TrainingStore(), collections };
  const writer = DevWriter.open(stores, { maxTraces, maxRecords, log, dataFile: options.dataFile });

  const context: DevContext = {
    store,
    collections: stores.collections,
    log,
    write: writer.write,
  };

  // The simulator writes through the same writer as the trace routes, so its records land in the same log.
  const training = new TrainingSimulator(stores.training, context.write, options.trainingStepMs ?? 300);
  const interrupted = training.failInterruptedJobs();
  if (interrupted > 0) log(`marked ${interrupted} training job(s) failed: they were still running when the service stopped`);
  const annotationQueues = new AnnotationQueueData(context);
  const localOnly = isLoopbackUrl(`http://${host.includes(':') ? `[${host}]` : host}`);
  const router = new Router(bearerAuth(options.apiKey), options.maxBodyBytes ?? 32 * 1024 * 1024, localOnly, log);
  const served: Route[] = [
    ...traceService([
      ...infoRoutes(context),
      otelRoute(context),
      ...callRoutes(context),
      ...callUsageRoutes(context),
      ...objectRoutes(context),
      ...objectLabelRoutes(context),
      ...tableRoutes(context),
      ...refRoutes(context),
      ...feedbackRoutes(context),
      ...fileRoutes(context),
      ...threadRoutes(context),
      ...costRoutes(context),
      ...annotationQueueRoutes(annotationQueues),
      ...annotationItemRoutes(context, annotationQueues),
      ...v2ObjectRoutes(context),
      ...v2EvaluationRecordRoutes(context),
    ]),
    ...chatRoutes(),
    ...trainingRoutes(training, DEFAULT_LOCAL_PROJECT.split('/')[0]!),
  ];
  router.add(...served, ...notImplementedRoutes(served));

  const server = createServer((req, res) => {
    void router.handle(req, res);
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => {
      writer.close();
      reject(error);
    });
    server.listen(port, host, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${urlHost}:${address.port}`;

  let closed: Promise<void> | undefined;
  return {
    url,
    v1Url: `${url}/v1`,
    trainingUrl: `${url}${TRAINING_PREFIX}/v1`,
    host: address.address,
    port: address.port,
    close() {
      closed ??= new Promise<void>((resolve) => {
        training.close();
        server.close(() => {
          writer.close();
          resolve();
        });
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** The trace service's routes, its errors worded as it words them (see {@link ErrorStyle}). */
function traceService(routes: Route[]): Route[] {
  return routes.map((route) => ({ errors: 'weave', ...route }));
}
