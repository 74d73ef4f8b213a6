import { type Span, SpanKind, type Tracer, trace } from '@opentelemetry/api';
import { activeContext, withActiveContextLazily } from '../../tracing/active-context.js';
import { chatRequestAttributes, chatSpanName } from './attributes.js';
import { type ChatCall, ChatCallRecorder } from './chat-call.js';
import { type ChatTracingConfig, fitToLengthLimit, type ResolvedChatTracingConfig, resolveChatTracingConfig } from './config.js';
import { reportInternalError } from './report.js';
import * as semconv from './semconv.js';
import { chatServer } from './server.js';
import type { ChatCompletionRequest } from './types.js';
import { rememberSecret } from '../../secrets.js';

/**
 * Reports how a call's result ended to its {@link ChatCall}, and returns what the caller gets back. It must
 * return `result` itself, or an object of the same type. The default, {@link settleChatResult}, handles plain
 * promises, completions and async-iterable streams.
 */
export type ChatResultSettler<T> = (result: T, call: ChatCall) => T;

/** Per-call options of {@link traceChatCompletion}. */
export interface TraceChatCompletionOptions<T> {
  /** How to record; a config resolved once with `resolveChatTracingConfig` is cheapest. Default: from the environment. */
  config?: ChatTracingConfig | ResolvedChatTracingConfig;
  /** The client's base URL (e.g. `https://api.openai.com/v1`): gives `server.address`, `server.port` and the provider. */
  serverUrl?: string;
  /** `gen_ai.provider.name`; default: derived from `serverUrl`'s host, `openai` for any host not known to be another provider. */
  providerName?: string;
  /** Strings that must never appear in a recorded error message, such as the API key. */
  secrets?: readonly (string | null | undefined)[];
  /** How to observe the result; default {@link settleChatResult}. */
  settle?: ChatResultSettler<T>;
}

/**
 * Traces one chat-completion call: starts the CLIENT span `chat {model}` with the request's attributes, runs
 * `invoke` inside it, and ends the span when the result settles — on the response, on an error (which is
 * rethrown as the same instance), or, for a stream, when its iteration completes, fails, is aborted, is left
 * early with `break`, or the stream is garbage-collected unfinished. This is the one code path for every chat
 * caller in weft: the `openai` instrumentation and weft's own inference and training clients.
 *
 * For a streamed request that did not ask for usage, `invoke` receives a copy of the request with
 * `stream_options.include_usage: true`, and the extra usage-only chunk is hidden from the caller (see
 * {@link ChatTracingConfig.requestStreamUsage}). Send the request `invoke` is given, not the original.
 *
 * Never throws on its own account: if tracing fails, the call runs untraced.
 *
 * @param tracer Where the span comes from.
 * @param request The request body, OpenAI-shaped.
 * @param invoke Sends the request. May return a promise of the completion, a promise of an async iterable of
 *   chunks, a stream directly, or any other type given a matching `settle`.
 * @returns What `invoke` returned; with the default settler a promise becomes a new promise of the same value,
 *   and a stream is the same object, observed in place.
 *
 * @example
 * // A non-streamed call over weft's HTTP core:
 * const completion = await traceChatCompletion(tracer, body, (req) => http.postJson('/chat/completions', req), {
 *   serverUrl: baseUrl,
 *   secrets: [apiKey],
 * });
 *
 * // A streamed call: `invoke` resolves to an AsyncIterable of parsed chunks.
 * const stream = await traceChatCompletion(tracer, { ...body, stream: true }, (req) => http.postSse('/chat/completions', req), {
 *   serverUrl: baseUrl,
 * });
 * for await (const chunk of stream) process(chunk);
 */
export function traceChatCompletion<T>(
  tracer: Tracer,
  request: ChatCompletionRequest,
  invoke: (request: ChatCompletionRequest) => T,
  options: TraceChatCompletionOptions<T> = {},
): T {
  let call: ChatCallRecorder | undefined;
  try {
    call = startChatCall(tracer, request, options);
  } catch (error) {
    reportInternalError('span start', error);
  }
  if (!call) return invoke(request);

  let result: T;
  try {
    // Spans started inside the call nest under the chat span. Its context reaches the call's async part (the
    // request, which an HTTP instrumentation may trace) only once the process uses contexts: before that, entering
    // it would cost every promise of the process on Node 20 and 22, for nobody to read it (see WeftContextManager).
    result = withActiveContextLazily(call.context, invoke, undefined, call.request);
  } catch (error) {
    call.fail(error);
    throw error;
  }
  try {
    return (options.settle ?? settleChatResult)(result, call);
  } catch (error) {
    reportInternalError('result settling', error);
    call.end();
    return result;
  }
}

/**
 * The default {@link ChatResultSettler}: a thenable becomes a promise that settles the call with its value (or
 * fails it with its error, rethrown unchanged); any other value is settled directly with {@link ChatCall.settle}.
 */
export function settleChatResult<T>(result: T, call: ChatCall): T {
  if (isThenable(result)) {
    return result.then(
      (value) => call.settle(value),
      (error: unknown) => {
        call.fail(error);
        throw error;
      },
    ) as T;
  }
  return call.settle(result);
}

const resolvedConfigs = new WeakMap<ChatTracingConfig, ResolvedChatTracingConfig>();
let defaultConfig: ResolvedChatTracingConfig | undefined;

function resolve(config: ChatTracingConfig | ResolvedChatTracingConfig | undefined): ResolvedChatTracingConfig {
  if (!config) {
    defaultConfig ??= resolveChatTracingConfig();
    return defaultConfig;
  }
  if ('captureInput' in config) return config;
  let resolved = resolvedConfigs.get(config);
  if (!resolved) {
    resolved = resolveChatTracingConfig(config);
    resolvedConfigs.set(config, resolved);
  }
  return resolved;
}

function startChatCall<T>(
  tracer: Tracer,
  request: ChatCompletionRequest,
  options: TraceChatCompletionOptions<T>,
): ChatCallRecorder | undefined {
  if (!request || typeof request !== 'object') return undefined;
  const resolved = resolve(options.config);
  const server = chatServer(options.serverUrl, options.providerName);
  const parent = activeContext();
  // Start with the cheap attributes a sampler may want; the rest (content, JSON) only if the span records.
  const span = tracer.startSpan(
    chatSpanName(request),
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [semconv.ATTR_GEN_AI_OPERATION_NAME]: semconv.GEN_AI_OPERATION_CHAT,
        [semconv.ATTR_GEN_AI_PROVIDER_NAME]: server.providerName,
        ...(typeof request.model === 'string' ? { [semconv.ATTR_GEN_AI_REQUEST_MODEL]: request.model } : {}),
      },
    },
    parent,
  );
  try {
    if (!span.isRecording()) {
      span.end();
      return undefined;
    }
    // Before any content is recorded: a prompt can quote the key of the client making this very call.
    for (const secret of options.secrets ?? []) rememberSecret(secret);
    const config = fitToLengthLimit(resolved, sdkLengthLimit(span));
    try {
      span.setAttributes(chatRequestAttributes(request, server));
    } catch (error) {
      // A request weft cannot read is still sent, and its span still ends; it just says less.
      reportInternalError('request attributes', error);
    }
    const hideUsage = config.requestStreamUsage && request.stream === true && request.stream_options?.include_usage !== true;
    const sent = hideUsage ? { ...request, stream_options: { ...request.stream_options, include_usage: true } } : request;
    const call = new ChatCallRecorder(span, trace.setSpan(parent, span), sent, config, hideUsage);
    call.recordRequestContentAtEnd(request);
    return call;
  } catch (error) {
    span.end();
    throw error;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * The SDK's attribute length limit on this span, from its provider's `spanLimits` or the environment; undefined
 * for none, or for a span that is not the SDK's (the environment's limit still applies then).
 */
function sdkLengthLimit(span: Span): number | undefined {
  const limit = (span as { _attributeValueLengthLimit?: unknown })._attributeValueLengthLimit;
  return typeof limit === 'number' && limit > 0 && Number.isFinite(limit) ? limit : undefined;
}
