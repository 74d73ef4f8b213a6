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
} from './errors.js';
export type { BinaryBody } from './body.js';
export { type FileContent, MultipartBody } from './multipart.js';
export { ResponseStream } from './response-stream.js';
export { type BackoffOptions, backoffDelay } from './retry.js';
export { parseRetryAfter } from '../../retry-after.js';
export { type QueryParams, type QueryValue, encodePath } from './url.js';
export { WEFT_VERSION } from './version.js';
