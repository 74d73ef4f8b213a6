/**
 * # The HTTP core: one small class that every service client (trace, inference, training) sends through
 *
 * It knows no endpoint. A resource class builds `{ method, path, query, body }` and picks one of:
 *
 * | method                 | returns                                   | use for                                 |
 * |------------------------|-------------------------------------------|-----------------------------------------|
 * | `request<T>(opts)`     | `Promise<T>`, the parsed JSON body        | ordinary JSON endpoints                 |
 * | `jsonl<T>(opts)`       | `ResponseStream<T>`, one item per line    | `application/jsonl` endpoints           |
 * | `stream(opts)`         | `ResponseStream<Uint8Array>`, raw chunks  | SSE (feed to eventsource-parser), files |
 * | `bytes(opts)`          | `Promise<Uint8Array>`, the whole body     | small binary downloads                  |
 * | `raw(opts)`            | `Promise<RawResponse>` (status, headers)  | when the headers matter                 |
 *
 * ## Contract
 * - **URL**: `baseUrl` keeps its path prefix (`https://host/traces` + `/call/start`). `path` is relative to it
 *   and must already be encoded: build it with {@link encodePath} so ids cannot change the route. Query
 *   values go in `query` (arrays repeat the key; undefined/null are left out).
 * - **Headers** sent on every request: `User-Agent: weft/<version>`, `Authorization: Bearer <apiKey>` when a
 *   key is set, the core's `headers` (e.g. `Compat-Project`), then the request's `headers` (a `null` value
 *   removes a default). `Accept` defaults to `application/json` (`application/jsonl` for `jsonl()`).
 * - **Body**: a {@link MultipartBody} is sent as multipart; `Uint8Array`/`ArrayBuffer`/`Blob`/streams as
 *   `application/octet-stream` (set `content-type` to override); anything else as JSON.
 * - **Timeout** (`timeoutMs`, per attempt, 0 for none): the longest wait for the response headers, and then
 *   the longest silence between two body chunks. A stream that keeps sending is never cut.
 * - **Retries** (`maxRetries`, default 2, so at most 3 attempts): on connection errors, timeouts and 408,
 *   429, 500, 502, 503, 504, after an exponential backoff with jitter, or after `Retry-After` /
 *   `retry-after-ms` when the server sends one (a `Retry-After` over 60 s ends the retries instead).
 *   Only requests marked idempotent are retried: by default GET, HEAD, OPTIONS, PUT and DELETE; a POST
 *   must say `idempotent: true` (queries and reads do; creates do not). A request that never reached the
 *   server (connection refused) is retried whatever its method, and one marked `retryUnprocessed` also
 *   after a 429 or 503, which say the server did not process it. A body that is a one-shot stream is never
 *   retried. Streams are retried only until their headers arrive, never mid-body.
 * - **Errors**: a non-2xx answer throws the {@link WeftApiError} subclass of its status (message from the
 *   FastAPI `detail`, the OpenAI-style `error.message`, or the text); no response throws
 *   {@link WeftConnectionError} or {@link WeftTimeoutError}; the caller's signal throws {@link WeftAbortError}; a
 *   body stream that fails (even before it is read) throws {@link WeftRequestBodyError}.
 *   Errors carry method and path, never headers; the API key is scrubbed from anything a server echoes.
 * - **Streams**: `jsonl()`/`stream()` return at once; the request is sent when iteration starts. Breaking out
 *   of `for await` (or an error in the loop body) destroys the response body, which closes the connection. A
 *   body the caller drops unfinished (a stream never read, an iterator left mid-way) is released like that once it
 *   is garbage-collected, with the attempt's listeners on the caller's signal and on `closing`.
 * - **Resource methods** take `CallOptions` (types.ts) as their last argument (signal, timeoutMs, maxRetries,
 *   idempotent, headers) and pass them through `forwardCallOptions()` (call-options.ts), which keeps only those
 *   five; the caller's `idempotent` overrides the endpoint's choice.
 * - **Lifetime**: cores share one keep-alive undici `Agent` when given a `dispatcher`; otherwise each core
 *   owns one, released by `close()`. `close()` first ends what is in flight (requests, streams being read or
 *   left unfinished, waits between retries), which fails with `WEFT_CLIENT_CLOSED`, so it settles at once.
 *
 * @example
 * const core = new HttpCore({ baseUrl: 'http://127.0.0.1:4780/v1', apiKey, headers: { 'Compat-Project': 'team/proj' } });
 * const models = await core.request<ModelList>({ method: 'GET', path: '/models' });
 * for await (const chunk of core.stream({ method: 'POST', path: '/chat/completions', body, idempotent: false })) { … }
 *
 * @module
 */
import { setMaxListeners } from 'node:events';
import type { Dispatcher } from 'undici';
import { abortableSleep } from './abortable-sleep.js';
import { type EncodedBody, encodeBody } from './body.js';
import {
  type ApiErrorInit,
  WeftAbortError,
  WeftApiError,
  WeftConnectionError,
  WeftError,
  WeftParseError,
  createApiError,
} from './errors.js';
import { quotedHeader } from './error-body.js';
import { parseJsonLines } from './jsonl.js';
import { ResponseStream } from './response-stream.js';
import {
  type BackoffOptions,
  MAX_RETRY_AFTER_MS,
  backoffDelay,
  isIdempotentMethod,
  isRetryableStatus,
  isUnprocessedStatus,
} from './retry.js';
import { parseRetryAfter } from '../../retry-after.js';
import { buildUrl } from './url.js';
import { checkHeaders, checkedBackoff, checkedFunction, checkedIdempotent, checkedSignal, retryCount, timerMs } from './options.js';
import { DEFAULT_USER_AGENT } from './version.js';
import { LazyAgent, loadUndici } from './undici.js';
import { rememberCredentialHeaders, rememberSecret } from '../../secrets.js';
import { AttemptGuard, GuardedBody, clientClosedError, readErrorBody, wasNeverSent, wasRefusedByUndici } from './attempt.js';
import { firstHeader, isJsonContentType, unexpectedBodyError } from './content-type.js';
import type { HttpCoreOptions, RawResponse, RequestOptions, ResponseHeaders, RetryEvent } from './types.js';

/** The default `timeoutMs`: one minute. */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** The default `maxRetries`: two retries, three attempts in all. */
export const DEFAULT_MAX_RETRIES = 2;

/** One HTTP client per service. See the module documentation above for the full contract. */
export class HttpCore {
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string;
  private readonly dispatcher: LazyAgent | Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly defaultHeaders: Record<string, string>;
  // The key lives in ES private fields, which util.inspect, JSON.stringify and Object.keys never see, and the
  // Authorization header is built per request, so no printout of a client (or of a resource holding this
  // core) can show it.
  readonly #apiKey: string | undefined;
  /** Set by close(): settles when the connections are released. */
  #closed: Promise<void> | undefined;
  /** Aborted by close(): ends the requests and streams in flight, and the waits between retries. */
  readonly #closing = new AbortController();
  /** Credentials in the `headers` option (a proxy's or gateway's), kept out of errors like the key. */
  readonly #headerSecrets: readonly string[];
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly backoff: BackoffOptions;
  private readonly onRetry: ((event: RetryEvent) => void) | undefined;
  readonly #unauthenticatedHint: (credentialsSent: boolean) => string;

  constructor(options: HttpCoreOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher = options.dispatcher ?? new LazyAgent();
    this.timeoutMs = timerMs(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
    this.maxRetries = retryCount(options.maxRetries, DEFAULT_MAX_RETRIES, 'maxRetries');
    this.backoff = checkedBackoff(options.backoff ?? {});
    this.onRetry = checkedFunction(options.onRetry, 'onRetry');
    this.#unauthenticatedHint =
      checkedFunction(options.unauthenticatedHint, 'unauthenticatedHint') ??
      ((sent) => (sent ? 'The API key was not accepted.' : 'No API key was sent.'));
    checkHeaders(options.headers);
    // Every attempt in flight listens to it (and removes its listener when done, or when the caller's response is
    // collected unfinished: see GuardedBody): many at once are no leak.
    setMaxListeners(0, this.#closing.signal);
    this.#apiKey = options.apiKey || undefined;
    // So that a span of an op that sees one of this client's errors cannot record the key either.
    rememberSecret(options.apiKey);
    this.#headerSecrets = rememberCredentialHeaders(options.headers);
    this.defaultHeaders = { 'user-agent': options.userAgent ?? DEFAULT_USER_AGENT, accept: 'application/json' };
    for (const [name, value] of Object.entries(options.headers ?? {})) this.defaultHeaders[name.toLowerCase()] = value;
  }

  /**
   * Sends a request and returns its parsed JSON body (undefined for an empty body). A body that is not JSON
   * throws a {@link WeftParseError}, unless the request says `allowText` and the body does not claim to be
   * JSON: then it is returned as a string.
   */
  async request<T = unknown>(options: RequestOptions): Promise<T> {
    return this.execute(options, async (response) => {
      const text = await response.body.text();
      if (text.trim() === '') return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch (error) {
        if (options.allowText && !isJsonContentType(response.headers)) return text as T;
        throw this.unexpectedBody(options, response, error);
      }
    });
  }

  /** Sends a request and returns the whole body as bytes. */
  async bytes(options: RequestOptions): Promise<Uint8Array> {
    return this.execute({ ...options, headers: { accept: '*/*', ...options.headers } }, (response) => response.body.bytes());
  }

  /** Sends a request and returns the response once its headers have arrived; the caller reads the body. */
  async raw(options: RequestOptions): Promise<RawResponse> {
    return this.execute(options, async (response) => response);
  }

  /** The body as raw chunks, sent when iteration starts; stopping early closes the connection. */
  stream(options: RequestOptions): ResponseStream<Uint8Array> {
    return new ResponseStream(() => this.iterate(options));
  }

  /** A `application/jsonl` body as one parsed value per line; see {@link parseJsonLines}. */
  jsonl<T>(options: RequestOptions): ResponseStream<T> {
    const withAccept = { ...options, headers: { accept: 'application/jsonl', ...options.headers } };
    const { method, path } = options;
    return new ResponseStream<T>(() =>
      parseJsonLines<T>(
        this.iterate(withAccept),
        (line, cause) => new WeftParseError(`weft: ${method} ${path} sent a line that is not JSON (line ${line})`, method, path, { cause }),
      ),
    );
  }

  /**
   * Ends the requests and streams still in flight, then releases the connections if this core owns its
   * dispatcher. What was in flight, and requests after it, fail with a {@link WeftConnectionError} (code
   * `WEFT_CLIENT_CLOSED`); closing again is harmless. undici's own close would wait for every request in
   * flight, and a stream left unfinished (a `for await` abandoned without `break`) would keep it waiting forever.
   */
  close(): Promise<void> {
    this.#closing.abort(new Error('weft: the client was closed'));
    this.#closed ??= this.ownsDispatcher ? this.dispatcher.close() : Promise.resolve();
    return this.#closed;
  }

  /** Aborts when {@link HttpCore.close} is called, so that a resource's own waits (a job watch's) end with it. */
  get closing(): AbortSignal {
    return this.#closing.signal;
  }

  private async *iterate(options: RequestOptions): AsyncGenerator<Uint8Array> {
    const response = await this.raw(options);
    try {
      yield* response.body;
    } finally {
      // Runs when the consumer stops early too: an unread body must not keep the connection busy.
      response.body.cancel();
    }
  }

  /**
   * The retry loop. `consume` reads a 2xx response; its connection errors are retried like the request's
   * own, which is right for bodies read whole (`request`, `bytes`) and harmless for streams (they return
   * at once).
   */
  private async execute<R>(options: RequestOptions, consume: (response: RawResponse) => Promise<R>): Promise<R> {
    const { method, path } = options;
    const closing = this.#closing.signal;
    if (closing.aborted) throw clientClosedError(method, path, 'was not sent: the client is closed');
    // The call's options are checked before anything is sent: a header undici refuses would otherwise fail each
    // attempt as a connection error, and be retried.
    const signal = checkedSignal(options.signal);
    const maxRetries = retryCount(options.maxRetries, this.maxRetries, 'maxRetries');
    checkHeaders(options.headers);
    const encoded = encodeBody(options.body);
    const replayable = encoded?.replayable ?? true;
    const idempotent = (checkedIdempotent(options.idempotent) ?? isIdempotentMethod(method)) && replayable;

    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw new WeftAbortError(method, path, { cause: signal.reason });
      let error: WeftError;
      let retryAfterMs: number | undefined;
      try {
        const response = await this.attempt(options, encoded);
        return await consume(response);
      } catch (caught) {
        if (!(caught instanceof WeftError)) throw caught;
        error = caught;
        if (caught instanceof WeftApiError) retryAfterMs = caught.retryAfterMs;
      }
      const retryable =
        error instanceof WeftApiError
          ? idempotent
            ? isRetryableStatus(error.status)
            : replayable && options.retryUnprocessed === true && isUnprocessedStatus(error.status)
          : error instanceof WeftConnectionError && !wasRefusedByUndici(error) && (idempotent || (replayable && wasNeverSent(error)));
      if (!retryable || attempt > maxRetries || closing.aborted) throw error;
      if (retryAfterMs !== undefined && retryAfterMs > MAX_RETRY_AFTER_MS) throw error;
      const delayMs = retryAfterMs ?? backoffDelay(attempt, this.backoff);
      try {
        const returned: unknown = this.onRetry?.({ method, path, attempt: attempt + 1, delayMs, error });
        // An async hook's rejection would be unhandled, and end the app: it is the hook's, and ignored like a throw.
        if (typeof (returned as PromiseLike<unknown> | undefined)?.then === 'function') {
          (returned as PromiseLike<unknown>).then(undefined, ignoreHookFailure);
        }
      } catch {
        // A logging hook must not change what the request does.
      }
      await abortableSleep(delayMs, [signal, closing], () =>
        signal?.aborted
          ? new WeftAbortError(method, path, { cause: signal.reason })
          : clientClosedError(method, path, 'was cut short: the client was closed'),
      );
    }
  }

  /** One attempt: sends the request and returns a 2xx response, or throws the matching weft error. */
  private async attempt(options: RequestOptions, encoded: EncodedBody | undefined): Promise<RawResponse> {
    const { method, path } = options;
    const timeoutMs = timerMs(options.timeoutMs, this.timeoutMs, 'timeoutMs');
    const sent = this.headersFor(options, encoded);
    const guard = new AttemptGuard(options.signal, this.#closing.signal, timeoutMs, method, path);
    let response: Dispatcher.ResponseData;
    try {
      const { request } = await loadUndici();
      const dispatcher = this.dispatcher instanceof LazyAgent ? await this.dispatcher.get() : this.dispatcher;
      response = await request(buildUrl(this.baseUrl, path, options.query), {
        dispatcher,
        method,
        headers: sent,
        body: encoded?.open() ?? null,
        signal: guard.signal,
        // The guard's timer covers the wait for headers; undici's body timeout covers silence mid-body.
        headersTimeout: 0,
        bodyTimeout: timeoutMs,
      });
    } catch (error) {
      guard.dispose();
      throw guard.classify(error);
    }
    guard.headersReceived();
    const headers = response.headers as ResponseHeaders;
    const requestId = firstHeader(headers['x-request-id']) ?? firstHeader(headers['request-id']);
    const body = new GuardedBody(response.body, guard);
    if (response.statusCode >= 200 && response.statusCode < 300) {
      return { status: response.statusCode, headers, requestId, body };
    }
    const errorBody = await readErrorBody(body, this.#secretList());
    throw createApiError({
      status: response.statusCode,
      method,
      path,
      body: errorBody,
      requestId,
      retryAfterMs: parseRetryAfter(headers),
      secrets: this.#secretList(),
      hint:
        response.statusCode === 401
          ? this.unauthenticated(sent.authorization !== undefined)
          : redirectHint(response.statusCode, headers, this.#secretList()),
    });
  }

  /**
   * Builds the API error of a failure the core did not see itself (e.g. an error event inside a stream it
   * returned), scrubbed of the key like the core's own errors, without handing the key out.
   */
  apiError(init: Omit<ApiErrorInit, 'secrets'>): WeftApiError {
    return createApiError({ ...init, secrets: this.#secretList() });
  }

  /**
   * Builds the parse error of a 2xx body that is not what was asked for (see {@link unexpectedBodyError}), its
   * quoted content type scrubbed of the key like the core's other errors, for a resource that read the body itself.
   */
  unexpectedBody(
    options: Pick<RequestOptions, 'method' | 'path'>,
    response: Pick<RawResponse, 'status' | 'headers'>,
    cause?: unknown,
    expected?: string,
  ): WeftParseError {
    return unexpectedBodyError(options, response, cause, expected, this.#secretList());
  }

  /** What `JSON.stringify` shows: the address and limits, never the key nor the default headers' values. */
  toJSON(): { baseUrl: string; timeoutMs: number; maxRetries: number } {
    return { baseUrl: this.baseUrl, timeoutMs: this.timeoutMs, maxRetries: this.maxRetries };
  }

  /** What `console.log` and `util.inspect` show: the same as {@link HttpCore.toJSON}. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `HttpCore ${JSON.stringify(this.toJSON())}`;
  }

  /** What a 401's message adds; a hint that throws adds nothing rather than replace the service's answer. */
  private unauthenticated(credentialsSent: boolean): string | undefined {
    try {
      return this.#unauthenticatedHint(credentialsSent);
    } catch {
      return undefined;
    }
  }

  /** The values an error must never show. */
  #secretList(): string[] {
    return this.#apiKey ? [this.#apiKey, ...this.#headerSecrets] : [...this.#headerSecrets];
  }

  private headersFor(options: RequestOptions, encoded: EncodedBody | undefined): Record<string, string> {
    const headers: Record<string, string> = { ...this.defaultHeaders };
    // A caller's own `authorization` in the core's headers wins, as it did when the key was a default header.
    if (this.#apiKey && headers.authorization === undefined) headers.authorization = `Bearer ${this.#apiKey}`;
    if (encoded?.contentType) headers['content-type'] = encoded.contentType;
    if (encoded?.contentLength !== undefined) headers['content-length'] = String(encoded.contentLength);
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      const key = name.toLowerCase();
      if (value === null) delete headers[key];
      else if (value !== undefined) headers[key] = value;
    }
    return headers;
  }
}

function ignoreHookFailure(): void {}

/**
 * What a redirect's error adds: weft follows none (the API key would go wherever a server points), so it says
 * where the server pointed, which is most often the base URL to use instead (`https://`, a trailing path).
 */
function redirectHint(status: number, headers: ResponseHeaders, secrets: readonly string[]): string | undefined {
  if (status < 300 || status >= 400) return undefined;
  // The key replaced before the cut: a cut through it would leave a part no redaction finds.
  const given = firstHeader(headers.location);
  const location = given === undefined ? undefined : quotedHeader(given, secrets);
  return `Redirects are not followed${location ? `: the server points to ${location}; check the base URL` : ''}.`;
}
