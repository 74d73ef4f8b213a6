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
  resolveChatTracingConfig,
} from './config.js';
export { reportInternalError } from './report.js';
export type * from './types.js';
