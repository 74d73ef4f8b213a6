// The HTTP core's types: the options of a core and of a request, and what a response gives. The request logic is
// http.ts.
import type { Dispatcher } from 'undici';
import type { WeftAbortError, WeftError, WeftParseError } from './errors.js';
import type { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, HttpCore } from './http.js';
import type { MultipartBody } from './multipart.js';
import type { BackoffOptions } from './retry.js';
import type { MAX_TIMER_MS } from './timer-limit.js';
import type { LazyAgent } from './undici.js';
import type { QueryParams, encodePath } from './url.js';

/** HTTP methods the services use. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/** Response headers, lower-cased names (as undici gives them). */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** What a retry is about to do; passed to {@link HttpCoreOptions.onRetry}. */
export interface RetryEvent {
  method: string;
  path: string;
  /** The attempt about to be made, counting from 1 (so the first retry is attempt 2). */
  attempt: number;
  /** How long weft waits before it, in milliseconds (from `Retry-After` when the server sent one). */
  delayMs: number;
  /** Why the previous attempt failed. */
  error: WeftError;
}

/** Options of one {@link HttpCore}, i.e. of one service. */
export interface HttpCoreOptions {
  /** The service's base URL, e.g. `https://host/traces` or `http://127.0.0.1:4780/v1`; its path prefix is kept. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; never appears in an error. */
  apiKey?: string | undefined;
  /** Headers sent with every request, e.g. `{ 'Compat-Project': 'team/proj' }`. */
  headers?: Record<string, string> | undefined;
  /** Default `weft/<version>`. */
  userAgent?: string | undefined;
  /** Default {@link DEFAULT_TIMEOUT_MS}; 0 disables the timeout; at most {@link MAX_TIMER_MS} (about 24.8 days). */
  timeoutMs?: number | undefined;
  /** Default {@link DEFAULT_MAX_RETRIES}. */
  maxRetries?: number | undefined;
  /** Backoff between retries. */
  backoff?: BackoffOptions | undefined;
  /** Called before each retry (for logging or metrics); what it throws is ignored. */
  onRetry?: ((event: RetryEvent) => void) | undefined;
  /**
   * What a 401's error message adds, given whether credentials were sent (an API key, or an `authorization`
   * header): where the key comes from, say. Default: that no key was sent, or that it was not accepted.
   */
  unauthenticatedHint?: ((credentialsSent: boolean) => string) | undefined;
  /**
   * An undici dispatcher to share between cores (or a {@link LazyAgent}, made on first use); when absent the core
   * makes (and `close()` closes) its own Agent.
   */
  dispatcher?: Dispatcher | LazyAgent | undefined;
}

/** Options a resource method passes through from its caller (the last argument of every client method). */
export interface CallOptions {
  /** Cancels the request (and a stream being read); the method then throws {@link WeftAbortError}. */
  signal?: AbortSignal | undefined;
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number | undefined;
  /** Overrides the client's number of retries for this call. */
  maxRetries?: number | undefined;
  /** Lets a call the client would not retry (a create) be retried, when the caller knows it is safe. */
  idempotent?: boolean | undefined;
  /** Extra headers; `null` removes a default one. */
  headers?: Record<string, string | null | undefined> | undefined;
}

/** One request: the caller's {@link CallOptions}, and what the resource method builds. */
export interface RequestOptions extends CallOptions {
  method: HttpMethod;
  /** Relative to the base URL, already encoded (see {@link encodePath}), e.g. `/call/start`. */
  path: string;
  query?: QueryParams | undefined;
  /** JSON value, {@link MultipartBody}, or bytes / Blob / stream (see the module doc of http.ts). */
  body?: unknown;
  /** May the request be sent twice? Default: true for GET, HEAD, OPTIONS, PUT, DELETE; false otherwise. */
  idempotent?: boolean | undefined;
  /**
   * The endpoint may answer with text rather than JSON (`GET /version`, or an undocumented answer returned as
   * sent): `request()` then returns a body that is not JSON as a string, unless its `Content-Type` says JSON.
   * Default false: a 2xx body that is not JSON is a {@link WeftParseError}.
   */
  allowText?: boolean | undefined;
  /**
   * For a request that is not idempotent: retry it anyway after a 429 or a 503, which say the service did
   * not process it (a connection refused before sending is retried in any case). Default false.
   */
  retryUnprocessed?: boolean | undefined;
}

/** A 2xx response whose body has not been read yet. */
export interface RawResponse {
  readonly status: number;
  readonly headers: ResponseHeaders;
  /** The `x-request-id` header, if any. */
  readonly requestId: string | undefined;
  /** The body; read it once (iterate, or `text()`/`json()`/`bytes()`), or `cancel()` it. */
  readonly body: ResponseBody;
}

/** The body of a {@link RawResponse}: errors while reading it are weft errors, and cancelling closes the connection. */
export interface ResponseBody extends AsyncIterable<Uint8Array> {
  text(): Promise<string>;
  json<T = unknown>(): Promise<T>;
  bytes(): Promise<Uint8Array>;
  /** Stops reading and releases the connection. */
  cancel(): void;
}
