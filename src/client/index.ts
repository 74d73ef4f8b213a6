/**
 * weft's typed client: `new Client()` with `trace`, `inference` and `training`, over one HTTP core.
 */
export { Client, type ClientOptions } from './client.js';
export {
  type CallOptions,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  HttpCore,
  type HttpCoreOptions,
  type HttpMethod,
  MultipartBody,
  type FileContent,
  type RawResponse,
  type RequestOptions,
  type ResponseBody,
  ResponseStream,
  type RetryEvent,
  type BackoffOptions,
  type BinaryBody,
  type QueryParams,
  type QueryValue,
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
  encodePath,
} from './core/index.js';
export {
  TraceClient,
  callName,
  type CallNode,
  type CallStartInput,
  type CallEndInput,
  type CallUpsertBatchInput,
  type CallsIterateOptions,
  type TraceTypes,
} from './trace/index.js';
export type { CallSchema, CallsQueryReq, ObjSchema, TableRowSchema, ThreadSchema } from './trace/types/index.js';
export * from './inference/index.js';
export * from './training/index.js';
