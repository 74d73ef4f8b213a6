import { type Attributes, SpanKind, type Tracer, trace } from '@opentelemetry/api';
import { activeContext, withActiveContextLazily } from '../../tracing/active-context.js';
import { isThenable } from '../../tracing/is-thenable.js';
import { started } from '../../tracing/unfinished.js';
import { chatRequestAttributes, chatSpanName } from './attributes.js';
import { type ChatCall, ChatCallRecorder } from './chat-call.js';
import { type ChatSpan, type SpanStart, SpanStartedWhenRead, spanStartedNow, startsWhenRead } from './chat-span.js';
import { type ChatTracingConfig, type ResolvedChatTracingConfig, resolveChatTracingConfig } from './config.js';
import { reportInternalError } from './report.js';
import * as semconv from '../../semconv.js';
import { type ChatServer, chatServer } from './server.js';
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
  config?: ChatTracingConfig | ResolvedChatTracingConfig | undefined;
  /** The client's base URL (e.g. `https://api.openai.com/v1`): gives `server.address`, `server.port` and the provider. */
  serverUrl?: string | undefined;
  /** `gen_ai.provider.name`; default: derived from `serverUrl`'s host, `openai` for any host not known to be another provider. */
  providerName?: string | undefined;
  /** Strings that must never appear in a recorded error message, such as the API key. */
  secrets?: readonly (string | null | undefined)[] | undefined;
  /** How to observe the result; default {@link settleChatResult}. */
  settle?: ChatResultSettler<T> | undefined;
  /**
   * The server sends a stream's usage chunk without being asked, as the platform's inference and training services
   * do: weft then leaves the request and the chunks as they are, since hiding the usage chunk would take away one
   * the caller gets without weft. Known hosts of those services count without it. Default: false (OpenAI's API).
   */
  serverSendsStreamUsage?: boolean | undefined;
  /**
   * The server answers a request with `stream_options` with an error (Azure OpenAI before API version
   * 2024-09-01-preview): weft asks it for no usage, and a stream's span has usage only if the caller asked.
   */
  serverRejectsStreamOptions?: boolean | undefined;
  /**
   * The caller's abort signal, for a stream that carries none of its own (openai's carries its controller): a stream
   * left or cancelled once the caller aborted counts as aborted, as with openai, unless the whole response had come.
   */
  signal?: AbortSignal | undefined;
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
  let started: ReturnType<typeof startChatCall>;
  try {
    started = startChatCall(tracer, request, options);
  } catch (error) {
    reportInternalError('span start', error);
  }
  if (!started) return invoke(request);
  const { recorder: call, context } = started;
  // A span the sampler dropped records nothing, but its context still goes with the request: an HTTP
  // instrumentation's span of it then follows the same decision instead of starting a trace of its own.
  if (!call) return withActiveContextLazily(context, invoke, undefined, request);

  let result: T;
  try {
    // Spans started inside the call nest under the chat span. Its context reaches the call's async part (the
    // request, which an HTTP instrumentation may trace) only once the process uses contexts: before that, entering
    // it would cost every promise of the process on Node 20 and 22, for nobody to read it (see WeftContextManager).
    result = withActiveContextLazily(context, invoke, undefined, call.request);
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
): { recorder: ChatCallRecorder | undefined; context: ChatSpan['context'] } | undefined {
  if (!request || typeof request !== 'object') return undefined;
  const config = resolve(options.config);
  const parent = activeContext();
  // Before any content is recorded: a prompt can quote the key of the client making this very call.
  for (const secret of options.secrets ?? []) rememberSecret(secret);
  const snapshot = requestSnapshot(request);
  const server = chatServer(options.serverUrl, options.providerName);
  const describe = () => chatSpanStart(snapshot, server);
  let span: ChatSpan;
  if (startsWhenRead(tracer, parent)) {
    span = new SpanStartedWhenRead(tracer, parent, describe);
  } else {
    // The span may not record: it must start now, so that a call it would not record is left as it is.
    const { name, options: spanOptions } = describe();
    const started = tracer.startSpan(name, spanOptions, parent);
    if (!started.isRecording()) {
      started.end();
      return { recorder: undefined, context: trace.setSpan(parent, started) };
    }
    span = spanStartedNow(started, parent);
  }
  const serverSendsUsage = request.stream === true && (options.serverSendsStreamUsage === true || server.sendsStreamUsage);
  const hideUsage =
    config.requestStreamUsage &&
    request.stream === true &&
    request.stream_options?.include_usage !== true &&
    !serverSendsUsage &&
    options.serverRejectsStreamOptions !== true;
  const recorder = new ChatCallRecorder(span, hideUsage ? withUsageRequested(request) : request, snapshot, config, hideUsage);
  recorder.serverSendsUsage = serverSendsUsage;
  recorder.providerName = server.providerName;
  recorder.streamSignal = options.signal;
  // Ended with what it received if the process ends first (register()'s exit hooks, shutdown()).
  started(recorder);
  return { recorder, context: span.context };
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A copy of the request as the call starts, its arrays copied too: the span's attributes and content are read
 * from it, possibly at the end of the call, and an app may reuse or extend its request meanwhile.
 */
function requestSnapshot(request: ChatCompletionRequest): ChatCompletionRequest {
  // Object.assign, then plain assignments: a spread with extra keys takes V8's slow path, on every call.
  const snapshot: Writable<ChatCompletionRequest> = Object.assign({}, request);
  snapshot.messages = copyOf(request.messages);
  snapshot.tools = copyOf(request.tools);
  snapshot.stop = copyOf(request.stop);
  return snapshot;
}

/** A copy of an array (the value itself otherwise); nothing for an array weft cannot read, which is then not recorded. */
function copyOf<V>(value: V): V {
  if (!Array.isArray(value)) return value;
  try {
    return value.slice() as V;
  } catch (error) {
    reportInternalError('request content', error);
    return undefined as V;
  }
}

/** The request with `stream_options.include_usage: true`, leaving the app's own object as it was. */
function withUsageRequested(request: ChatCompletionRequest): ChatCompletionRequest {
  const sent: Writable<ChatCompletionRequest> = Object.assign({}, request);
  sent.stream_options = Object.assign({}, request.stream_options, { include_usage: true });
  return sent;
}

/** The span's name and what it starts with, which a sampler sees: operation, provider, server, model, parameters. */
function chatSpanStart(request: ChatCompletionRequest, server: ChatServer): SpanStart {
  let attributes: Attributes;
  try {
    attributes = chatRequestAttributes(request, server);
  } catch (error) {
    // A request weft cannot read is still sent, and its span still ends; it just says less.
    reportInternalError('request attributes', error);
    attributes = {
      [semconv.ATTR_GEN_AI_OPERATION_NAME]: semconv.GEN_AI_OPERATION_CHAT,
      [semconv.ATTR_GEN_AI_PROVIDER_NAME]: server.providerName,
    };
  }
  return { name: chatSpanName(request), options: { kind: SpanKind.CLIENT, attributes } };
}
