export {
  type TraceChatCompletionOptions,
  type ChatResultSettler,
  settleChatResult,
  traceChatCompletion,
} from './trace-chat-completion.js';
export type { ChatCall } from './chat-call.js';
export {
  type CaptureContent,
  type ChatTracingConfig,
  type ContentRedactor,
  type ResolvedChatTracingConfig,
  CHAT_TRACING_ENV,
  resolveChatTracingConfig,
} from './config.js';
export {
  chatErrorAttributes,
  chatRequestAttributes,
  chatResponseAttributes,
  chatSpanName,
  chatUsageAttributes,
  errorType,
} from './attributes.js';
export { type ChatServer, chatServer } from './server.js';
export { ChatStreamAccumulator } from './stream-accumulator.js';
export { internalErrorCount, reportInternalError } from './report.js';
export type * from './types.js';
