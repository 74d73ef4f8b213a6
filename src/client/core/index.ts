export { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, HttpCore } from './http.js';
export type {
  CallOptions,
  HttpCoreOptions,
  HttpMethod,
  RawResponse,
  RequestOptions,
  ResponseBody,
  ResponseHeaders,
  RetryEvent,
} from './types.js';
export {
  type ApiErrorInit,
  type ValidationIssue,
  WeftAbortError,
  WeftApiError,
  WeftAuthenticationError,
  WeftBadRequestError,
  WeftConflictError,
  WeftConnectionError,
  WeftError,
  WeftNotFoundError,
  WeftParseError,
  WeftPermissionError,
  WeftQuotaExceededError,
  WeftRateLimitError,
  WeftRequestBodyError,
  WeftServerError,
  WeftTimeoutError,
  WeftValidationError,
  createApiError,
} from './errors.js';
export type { BinaryBody } from './body.js';
export { type FileContent, MultipartBody } from './multipart.js';
export { parseJsonLines } from './jsonl.js';
export { ResponseStream } from './response-stream.js';
export { type BackoffOptions, MAX_RETRY_AFTER_MS, backoffDelay, parseRetryAfter } from './retry.js';
export { type QueryParams, type QueryValue, buildUrl, encodePath, encodeSegment } from './url.js';
export { DEFAULT_USER_AGENT, WEFT_VERSION } from './version.js';
