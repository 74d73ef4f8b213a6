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
 * given. The client has already settled a stream's usage (see `withStreamUsage` in completions.ts: it asks unless
 * the caller set `include_usage`, and hands the usage chunk on), so tracing must neither ask again nor hide the
 * chunk: the request and the chunks stay as the client made them, and a caller's `include_usage: false` stays false.
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
    // A usage chunk may come even when the caller said false (the training service's schema defaults `include_usage`
    // to true, and the inference docs' stream gets one unasked: reference training-inference.md §1.8, §2.2): it is
    // recorded, and reaches the caller as the service sent it.
    { config: tracing, serverUrl: baseUrl, serverSendsStreamUsage: true, signal },
  );
}
