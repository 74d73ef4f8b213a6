export { InferenceClient, type InferenceClientOptions } from './inference-client.js';
export { COMPAT_PROJECT_HEADER, OPENAI_PROJECT_HEADER } from './project-header.js';
export { ChatCompletions, type ChatCompletionsRoute, type ChatRequestOptions } from './chat/completions.js';
export { ChatCompletionStream } from './chat/chat-completion-stream.js';
export { STREAM_INCOMPLETE } from './chat/chunk-stream.js';
export type * from './chat/types.js';
export { Models } from './models/models.js';
export type { Model, ModelList } from './models/types.js';
export type { ChatTracingOption } from './chat/trace-chat.js';
