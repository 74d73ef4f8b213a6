import {
  type ChatCompletionRequest,
  type ChatTracingConfig,
  type ResolvedChatTracingConfig,
  resolveChatTracingConfig,
  traceChatCompletion,
} from '../../../instrumentation/chat/index.js';
import { weftTracer } from '../../../tracing/tracer.js';
import type { ChatCompletionCreateParams } from './types.js';

/**
 * How a client's chat calls are traced: `false` for not at all, or the same options as the `openai`
 * instrumentation (content capture, redaction, limits). Default: traced, options from the environment.
 */
export type ChatTracingOption = ChatTracingConfig | false;

/** A {@link ChatTracingOption} checked once, when the client is made. */
export type ResolvedChatTracing = ResolvedChatTracingConfig | false;

/** Checks a client's tracing option once, so a bad value fails at construction, not at the first call. */
export function resolveChatTracing(option: ChatTracingOption | undefined): ResolvedChatTracing {
  if (option === false) return false;
  return resolveChatTracingConfig(option ?? {});
}

/**
 * Runs one chat call inside the CLIENT span `chat {model}` through `traceChatCompletion`, the one code path
 * that the `openai` instrumentation uses too, so both make the same spans. `invoke` sends the request it is
 * given. The services send a stream's usage chunk unasked, so the request and the chunks stay as the caller's.
 */
export function traceChat<R>(
  tracing: ResolvedChatTracing,
  baseUrl: string,
  request: ChatCompletionCreateParams,
  invoke: (request: ChatCompletionCreateParams) => Promise<R>,
  signal?: AbortSignal,
): Promise<R> {
  if (tracing === false) return invoke(request);
  return traceChatCompletion(
    weftTracer(),
    request as ChatCompletionRequest,
    (sent) => invoke(sent as ChatCompletionCreateParams),
    // The inference and training services send a stream's usage chunk unasked: weft must not hide it.
    { config: tracing, serverUrl: baseUrl, serverSendsStreamUsage: true, signal },
  );
}
