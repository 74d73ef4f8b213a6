/**
 * Auto-instrumentation of chat-completion calls: the `openai` package's instrumentation, and the one chat
 * tracing path (`traceChatCompletion`) it shares with weft's own client.
 */
export {
  OPENAI_INSTRUMENTATION_NAME,
  OpenAIInstrumentation,
  type OpenAIInstrumentationConfig,
  SUPPORTED_OPENAI_VERSIONS,
  instrumentOpenAI,
  sharedOpenAIInstrumentation,
  weftInstrumentations,
} from './openai/index.js';
export {
  type CaptureContent,
  type ChatCall,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  type ChatResultSettler,
  type ChatTracingConfig,
  type ContentRedactor,
  type GenAIBlobPart,
  type GenAIFilePart,
  type GenAIGenericPart,
  type GenAIMessage,
  type GenAIOutputMessage,
  type GenAIPart,
  type GenAIReasoningPart,
  type GenAITextPart,
  type GenAIToolCallPart,
  type GenAIToolCallResponsePart,
  type GenAIToolDefinition,
  type GenAIUriPart,
  type ResolvedChatTracingConfig,
  type TraceChatCompletionOptions,
  resolveChatTracingConfig,
  settleChatResult,
  traceChatCompletion,
} from './chat/index.js';
