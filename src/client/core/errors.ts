/**
 * The errors of weft's client. Every failure of a request is a {@link WeftError} (an option weft cannot use is a
 * `WeftConfigError` instead, thrown before anything is sent):
 *
 * ```
 * WeftError
 * ├── WeftApiError                 the service answered with a status outside 2xx
 * │   ├── WeftBadRequestError      400
 * │   ├── WeftAuthenticationError  401
 * │   ├── WeftQuotaExceededError   402 (out of credits / spend cap)
 * │   ├── WeftPermissionError      403
 * │   ├── WeftNotFoundError        404
 * │   ├── WeftConflictError        409
 * │   ├── WeftValidationError      422 (FastAPI validation; `issues` lists what was wrong)
 * │   ├── WeftRateLimitError       429
 * │   └── WeftServerError          5xx
 * ├── WeftConnectionError          no usable response: refused, reset, DNS, TLS…
 * │   └── WeftTimeoutError         no response within `timeoutMs`
 * ├── WeftAbortError               the caller's AbortSignal fired
 * ├── WeftRequestBodyError         the request's body (a stream you gave) failed while weft read it
 * └── WeftParseError               a 2xx body (or one JSONL line) was not the JSON it should be
 * ```
 *
 * Errors carry the method and the path, never request headers: the API key cannot leak through them.
 * `instanceof` holds across weft's ES-module and CommonJS builds, for an app that has both loaded.
 *
 * @module
 */

import { isInstanceAcrossBuilds, markLineage, ownErrorClasses } from '../../cross-build.js';
import { isValidationIssue, parseErrorBody, quotedHeader, redact, withoutQuotedInput } from './error-body.js';

/** Base class of every failure of a request of weft's client (a bad option is a `WeftConfigError`). */
export class WeftError extends Error {
  override readonly name: string = 'WeftError';
  /** HTTP method of the request that failed. */
  readonly method: string;
  /** Path of the request, relative to the service's base URL, without the query string. */
  readonly path: string;

  constructor(message: string, method: string, path: string, options?: { cause?: unknown }) {
    super(message, options);
    this.method = method;
    this.path = path;
    markLineage(this, new.target);
  }

  /** True for errors of the other build of weft too (ES module and CommonJS): see `cross-build.ts`. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class checked against, a subclass as well
    return isInstanceAcrossBuilds(this, value);
  }
}

/** One entry of a FastAPI validation error (`{"detail": [{loc, msg, type}]}`). */
export interface ValidationIssue {
  /** Where the problem is, e.g. `["body", "start", "op_name"]`. */
  loc: Array<string | number>;
  /** What is wrong, e.g. `Field required`. */
  msg: string;
  /** Machine-readable kind, e.g. `missing`. */
  type: string;
  /** Other fields FastAPI may add (`input`, `ctx`, `url`). */
  [key: string]: unknown;
}

/** What the core knows about a failed response; the input of {@link createApiError}. */
export interface ApiErrorInit {
  status: number;
  method: string;
  path: string;
  /** The parsed JSON body, or the body text when it was not JSON, or undefined when empty. */
  body: unknown;
  requestId: string | undefined;
  /** Delay the service asked for in `Retry-After`, in milliseconds. */
  retryAfterMs: number | undefined;
  /** Strings that must never appear in the message (the API key). */
  secrets?: readonly string[] | undefined;
  /** Added to the message: what to check, e.g. where the API key comes from after a 401. */
  hint?: string | undefined;
}

/** The service answered with a status outside 2xx. See the subclasses for the common statuses. */
export class WeftApiError extends WeftError {
  override readonly name: string = 'WeftApiError';
  /** HTTP status, e.g. 404. */
  readonly status: number;
  /** The server's own message (FastAPI `detail`, OpenAI `error.message`, or the body text). */
  readonly serverMessage: string;
  /**
   * The server's detail as sent: FastAPI's `detail` (a string, or the list of validation issues), the
   * OpenAI-style `error` object, or the whole body when it has neither.
   */
  readonly detail: unknown;
  /** The parsed response body (JSON when it was JSON, else its text). */
  readonly body: unknown;
  /** OpenAI-style `error.type`, when the server sent one. */
  readonly type: string | undefined;
  /** OpenAI-style `error.code`, when the server sent one. */
  readonly code: string | undefined;
  /** The `x-request-id` response header, to quote when reporting a problem. */
  readonly requestId: string | undefined;
  /** The delay the server asked for with `Retry-After`, in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(init: ApiErrorInit) {
    const parsed = parseErrorBody(init.body, init.status, init.secrets);
    const serverMessage = parsed.message;
    const requestId = init.requestId === undefined ? undefined : quotedHeader(init.requestId, init.secrets);
    const suffix = requestId ? ` (request id ${requestId})` : '';
    // A hint may quote a header (a redirect's Location), which may quote the key.
    const hint = init.hint ? ` ${redact(init.hint.trim(), init.secrets)}` : '';
    super(`weft: ${init.method} ${init.path} failed with ${init.status}: ${serverMessage}${suffix}${hint}`, init.method, init.path);
    this.status = init.status;
    this.serverMessage = serverMessage;
    this.detail = parsed.detail;
    this.body = parsed.body;
    this.type = parsed.type;
    this.code = parsed.code;
    this.requestId = requestId;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** 400: the request was malformed. */
export class WeftBadRequestError extends WeftApiError {
  override readonly name = 'WeftBadRequestError';
}
/** 401: the API key is missing or wrong (on the inference service, also a wrong project header). */
export class WeftAuthenticationError extends WeftApiError {
  override readonly name = 'WeftAuthenticationError';
}
/** 402: out of credits or over the spend cap. */
export class WeftQuotaExceededError extends WeftApiError {
  override readonly name = 'WeftQuotaExceededError';
}
/** 403: the key may not do this (or the region is not served). */
export class WeftPermissionError extends WeftApiError {
  override readonly name = 'WeftPermissionError';
}
/** 404: no such resource. */
export class WeftNotFoundError extends WeftApiError {
  override readonly name = 'WeftNotFoundError';
}
/** 409: the resource is in a state that conflicts with the request. */
export class WeftConflictError extends WeftApiError {
  override readonly name = 'WeftConflictError';
}
/** 429: too many requests (or too many in flight). `retryAfterMs` says when to try again, if the server said. */
export class WeftRateLimitError extends WeftApiError {
  override readonly name = 'WeftRateLimitError';
}
/** 5xx: the service failed. */
export class WeftServerError extends WeftApiError {
  override readonly name = 'WeftServerError';
}

/**
 * 422: the service rejected the request body. `issues` holds FastAPI's list, readable as
 * `issue.loc.join('.') + ': ' + issue.msg`; the message already lists them.
 */
export class WeftValidationError extends WeftApiError {
  override readonly name = 'WeftValidationError';
  /** FastAPI's validation issues; empty when the body had another shape. */
  readonly issues: ValidationIssue[];

  constructor(init: ApiErrorInit) {
    super(init);
    this.issues = Array.isArray(this.detail) ? this.detail.filter(isValidationIssue) : [];
  }
}

/** Builds the {@link WeftApiError} subclass that matches the status. */
export function createApiError(init: ApiErrorInit): WeftApiError {
  const { status } = init;
  if (status === 400) return new WeftBadRequestError(init);
  if (status === 401) return new WeftAuthenticationError(init);
  if (status === 402) return new WeftQuotaExceededError(init);
  if (status === 403) return new WeftPermissionError(init);
  if (status === 404) return new WeftNotFoundError(init);
  if (status === 409) return new WeftConflictError(init);
  if (status === 422) return new WeftValidationError(init);
  if (status === 429) return new WeftRateLimitError(init);
  if (status >= 500) return new WeftServerError(init);
  return new WeftApiError(init);
}

/** No usable response arrived: the connection was refused, reset or closed, or the host was not found. */
export class WeftConnectionError extends WeftError {
  override readonly name: string = 'WeftConnectionError';
  /** The system or undici error code when there is one, e.g. `ECONNREFUSED`, `UND_ERR_SOCKET`. */
  readonly code: string | undefined;

  constructor(message: string, method: string, path: string, options?: { cause?: unknown; code?: string | undefined }) {
    super(message, method, path, options);
    this.code = options?.code;
  }
}

/** No complete response within the request's `timeoutMs` (after the allowed retries). */
export class WeftTimeoutError extends WeftConnectionError {
  override readonly name = 'WeftTimeoutError';
  /** The timeout that was exceeded, in milliseconds. */
  readonly timeoutMs: number;

  constructor(method: string, path: string, timeoutMs: number, options?: { cause?: unknown }) {
    super(`weft: ${method} ${path} timed out after ${timeoutMs} ms`, method, path, { ...options, code: 'ETIMEDOUT' });
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The caller's `AbortSignal` fired. weft throws this (rather than rethrowing the signal's reason) so every
 * client failure is a {@link WeftError}; the signal's reason is kept as `cause`.
 */
export class WeftAbortError extends WeftError {
  override readonly name = 'WeftAbortError';

  constructor(method: string, path: string, options?: { cause?: unknown }) {
    super(`weft: ${method} ${path} was aborted`, method, path, options);
  }
}

/**
 * The request's body could not be read: a stream given as the body (or as a file's content) failed, e.g.
 * `fs.createReadStream()` of a path that does not exist. The stream's own error is the `cause`.
 */
export class WeftRequestBodyError extends WeftError {
  override readonly name = 'WeftRequestBodyError';
  /** The stream error's code when it has one, e.g. `ENOENT`. */
  readonly code: string | undefined;

  constructor(method: string, path: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`weft: ${method} ${path} failed: its request body could not be read: ${reason}`, method, path, { cause });
    const code = (cause as { code?: unknown } | undefined)?.code;
    this.code = typeof code === 'string' ? code : undefined;
  }
}

/**
 * A successful response (or one JSONL line) was not the JSON it should be, e.g. an HTML page when the base URL
 * points at a web app rather than at the service.
 */
export class WeftParseError extends WeftError {
  override readonly name = 'WeftParseError';
  /** The response's status, when the whole body was to be JSON. */
  readonly status: number | undefined;
  /** The response's `Content-Type`, when the whole body was to be JSON and it had one. */
  readonly contentType: string | undefined;

  constructor(
    message: string,
    method: string,
    path: string,
    options?: { cause?: unknown; code?: string | undefined; status?: number | undefined; contentType?: string | undefined },
  ) {
    super(message, method, path, { cause: withoutQuotedInput(options?.cause) });
    this.status = options?.status;
    this.contentType = options?.contentType;
  }
}

ownErrorClasses(
  WeftError,
  WeftApiError,
  WeftBadRequestError,
  WeftAuthenticationError,
  WeftQuotaExceededError,
  WeftPermissionError,
  WeftNotFoundError,
  WeftConflictError,
  WeftRateLimitError,
  WeftServerError,
  WeftValidationError,
  WeftConnectionError,
  WeftTimeoutError,
  WeftAbortError,
  WeftRequestBodyError,
  WeftParseError,
);
