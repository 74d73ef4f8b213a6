import { type ClientRequest, Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { type ExportResponse, type IExporterTransport, OTLPExporterError } from '@opentelemetry/otlp-exporter-base';
import { parseRetryAfter } from '../retry-after.js';

const gzipAsync = promisify(gzip);

// The three export errors below are not imported elsewhere: resilient-exporter.ts reads their `retryAfterMs`,
// `timedOut` and `permanent` properties (which an error of another transport may carry too), and those properties
// are the contract. Keep their names if these classes change.

/** An export refused for a passing reason (429, 502-504), with how long the service asked weft to wait. */
class RetryableExportError extends OTLPExporterError {
  constructor(
    message: string | undefined,
    code: number,
    /** The service's `Retry-After`, in ms, when it sent one. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(message, code);
  }
}

/** What {@link createOtlpTransport} is given: where and how to send, and whether a failed attempt may be tried again. */
export interface OtlpTransportConfig {
  url: string;
  headers: Record<string, string>;
  gzip: boolean;
  userAgent: string;
  /**
   * Asked after a failed attempt, with its error: whether another may follow within the export's timeout. weft's
   * exporter says no once the service has failed, until it takes a request again (its pauses and probes retry then,
   * and a flush makes one quick attempt instead of several), and to a failed connection as the pipeline ends (see
   * {@link isConnectionFailure}).
   */
  mayRetry?: (error: Error | undefined) => boolean;
}

/** The HTTP transport of weft's exporter, and a way to let go of it at exit. */
export interface OtlpTransport extends IExporterTransport {
  /**
   * Lets the process end while requests are open or waiting to be retried (weft gave up waiting for them at
   * exit): their sockets and timers no longer hold the event loop, and no further attempt is made for them.
   * Exports started later (the app lived on) are sent and retried as usual.
   */
  release(): void;
}

// As OTel's own retrying transport: a few quick attempts within one export's timeout.
const MAX_ATTEMPTS = 5;
const FIRST_BACKOFF_MS = 1000;
const LONGEST_BACKOFF_MS = 5000;
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

/**
 * Request errors that pass: the network, the service restarting, DNS for a moment. ENOTFOUND is among them
 * although a misspelt host never resolves: an offline machine reports it too, and the retry backlog is bounded.
 * Anything else (a TLS certificate refused, a protocol error) will fail the same way every time.
 */
const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
]);

/** An attempt that got no complete answer within its time limit: the service is hanging, or the network is. */
class ExportTimeoutError extends Error {
  readonly timedOut = true;
  constructor() {
    super('Request timed out');
  }
}

/** A request error that sending again will not cure (e.g. a TLS certificate refused). */
class PermanentExportError extends Error {
  readonly permanent = true;
  constructor(cause: Error) {
    super(cause.message, { cause });
  }
}

/**
 * Whether an attempt failed for want of a connection (refused, reset, unreachable: nobody listens there now), not for
 * the service's answer (429, 503: it is there, and may say when to come back) or for its silence (a timeout).
 */
export function isConnectionFailure(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && RETRYABLE_CODES.has(code);
}

function requestFailed(error: Error): ExportResponse {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && RETRYABLE_CODES.has(code)) return { status: 'retryable', error };
  return { status: 'failure', error: new PermanentExportError(error) };
}

/** One export under way: its attempt in flight or its pause before the next, and whether weft let go of it. */
interface Sending {
  released: boolean;
  request?: { req: ClientRequest; timer: NodeJS.Timeout };
  wake?: () => void;
}

/**
 * Sends OTLP bodies over HTTP(S), retrying passing failures within the export timeout as OTel's transport does,
 * but reporting a `Retry-After` it could not honour in time (so that weft holds the spans that long instead of
 * sending them again at the next flush), and with retries and sockets that can be let go of at exit.
 */
export function createOtlpTransport(config: OtlpTransportConfig): OtlpTransport {
  const url = new URL(config.url);
  const secure = url.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const request = secure ? httpsRequest : httpRequest;
  /** The exports under way; `release()` lets go of these, and only these: later exports are sent as usual. */
  const live = new Set<Sending>();

  const attempt = (body: Uint8Array, timeoutMs: number, sending: Sending): Promise<ExportResponse> =>
    new Promise((outcome) => {
      // A wall-clock limit on the whole attempt, not an idle one: a service that trickles a byte now and then
      // must not keep an export (and its socket, and the process) open forever.
      const timer = setTimeout(() => {
        req.destroy();
        fail({ status: 'retryable', error: new ExportTimeoutError() });
      }, timeoutMs);
      let settled = false;
      const resolve = (response: ExportResponse) => {
        // The first outcome counts: the events that follow a destroyed request must not touch a later attempt.
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        sending.request = undefined;
        outcome(response);
      };
      // Set once a 2xx status line and headers arrived: the service has taken the batch. Whatever becomes of the
      // body then (it trickles past the time limit, breaks off, or is too large), the attempt delivered it:
      // sending it again would duplicate the spans.
      let accepted = false;
      const fail = (response: ExportResponse) => resolve(accepted ? { status: 'success', data: new Uint8Array(0) } : response);
      const headers: Record<string, string | number> = { ...config.headers, 'User-Agent': config.userAgent, 'Content-Length': body.byteLength };
      if (config.gzip) headers['Content-Encoding'] = 'gzip';
      const onResponse = (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        accepted = status >= 200 && status < 300;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            res.destroy();
            fail({ status: 'failure', error: new Error('the export response was larger than 4 MiB') });
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          if (accepted) resolve({ status: 'success', data: Buffer.concat(chunks) });
          else if (RETRYABLE_STATUS.has(status)) {
            const wait = parseRetryAfter(res.headers);
            resolve({ status: 'retryable', retryInMillis: wait, error: new RetryableExportError(res.statusMessage, status, wait) });
          } else resolve({ status: 'failure', error: new OTLPExporterError(res.statusMessage, status, Buffer.concat(chunks).toString('utf8')) });
        });
        res.on('error', (error) => fail({ status: 'retryable', error }));
      };
      // Suppressed around each request, retries included, rather than relying on the export's caller: an HTTP
      // instrumentation decides whether to trace a request when it is made, and must not trace weft's own.
      const req = context.with(suppressTracing(context.active()), () => request(url, { method: 'POST', agent, headers }, onResponse));
      req.on('error', (error) => fail(requestFailed(error)));
      sending.request = { req, timer };
      req.end(body);
    });

  const pause = (ms: number, sending: Sending): Promise<void> =>
    new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sending.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      sending.wake = done;
    });

  return {
    async send(data, timeoutMillis) {
      const sending: Sending = { released: false };
      live.add(sending);
      try {
        // A clock that never steps: a wall clock set back would stretch the deadline by as much.
        const deadline = performance.now() + timeoutMillis;
        const body = config.gzip ? await gzipAsync(data) : data;
        let backoff = FIRST_BACKOFF_MS;
        let result = await attempt(body, timeoutMillis, sending);
        const mayRetry = config.mayRetry ?? (() => true);
        for (let n = 1; n < MAX_ATTEMPTS && result.status === 'retryable' && !sending.released && mayRetry(result.error); n++) {
          const jittered = Math.min(backoff * (0.8 + Math.random() * 0.4), LONGEST_BACKOFF_MS);
          backoff *= 1.5;
          const wait = result.retryInMillis ?? jittered;
          if (wait > deadline - performance.now()) break;
          await pause(wait, sending);
          if (sending.released) break;
          result = await attempt(body, Math.max(1, deadline - performance.now()), sending);
        }
        return result;
      } finally {
        live.delete(sending);
      }
    },
    release() {
      for (const sending of live) {
        sending.released = true;
        sending.wake?.();
        const open = sending.request;
        if (open) {
          // Its timer and socket stay, so that it still settles (and its spans are counted) if the process lives on,
          // but neither holds the process. A keep-alive socket is referenced again when a later request reuses it.
          open.timer.unref();
          if (open.req.socket) open.req.socket.unref();
          else open.req.once('socket', (socket) => socket.unref());
        }
      }
    },
    shutdown() {
      agent.destroy();
    },
  };
}
