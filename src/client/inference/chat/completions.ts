import { forwardCallOptions } from '../../core/call-options.js';
import { isHtml, isJsonContentType } from '../../core/content-type.js';
import type { HttpCore } from '../../core/http.js';
import type { CallOptions } from '../../core/types.js';
import { ChatCompletionStream } from './chat-completion-stream.js';
import { notAnEventStream, readChatChunks } from './chunk-stream.js';
import { type ResolvedChatTracing, traceChat } from './trace-chat.js';
import type { ChatCompletionCreateParams, ChatCompletionCreateParamsBase, ChatCompletionResponse, ChatCompletionSettings } from './types.js';

/** Options of one chat call: an `AbortSignal`, a timeout per attempt, retries, extra headers. */
export type ChatRequestOptions = CallOptions;

/** Where a {@link ChatCompletions} resource sends its calls. */
export interface ChatCompletionsRoute<O extends ChatRequestOptions = ChatRequestOptions> {
  /** The path under the service's base URL for one call, e.g. `/chat/completions`. */
  path: (options: O) => string;
  /** Headers added to every call (e.g. `Compat-Project`). */
  headers?: Record<string, string> | undefined;
  /** How calls are traced (see `resolveChatTracing`). */
  tracing: ResolvedChatTracing;
}

/**
 * `chat.completions` of the inference and training services: the same OpenAI-style format, traced through
 * the same mapping as the `openai` instrumentation.
 *
 * A chat call is billed, and a 500 or a timeout does not say whether the service ran it, so by default it is
 * retried only when the service certainly did not: a 429 or a 503, or a connection refused before the
 * request was sent (a stream only until its headers arrive). Pass `{ idempotent: true }` to retry it like a
 * read (any 5xx, 408, a timeout, a broken connection), or `{ maxRetries: 0 }` for no retries at all.
 */
export class ChatCompletions<
  P extends ChatCompletionSettings & { messages: readonly unknown[] } = ChatCompletionCreateParamsBase,
  O extends ChatRequestOptions = ChatRequestOptions,
> {
  constructor(
    private readonly core: HttpCore,
    private readonly route: ChatCompletionsRoute<O>,
  ) {}

  /**
   * Creates a chat completion. With `stream: true` the promise resolves, once the response headers arrive,
   * to a {@link ChatCompletionStream} of chunks; otherwise to the whole completion.
   *
   * @throws WeftQuotaExceededError (402, out of credits), WeftRateLimitError (429, concurrency limit),
   *   WeftServerError (503, engine overloaded; other 5xx), and the core's other errors.
   *
   * @example
   * const completion = await client.inference.chat.completions.create({
   *   model: 'meta-llama/Llama-3.1-8B-Instruct',
   *   messages: [{ role: 'user', content: 'Hello' }],
   * });
   */
  create(body: P & { stream?: false | null | undefined }, options?: O): Promise<ChatCompletionResponse>;
  create(body: P & { stream: true }, options?: O): Promise<ChatCompletionStream>;
  create(body: P, options?: O): Promise<ChatCompletionResponse | ChatCompletionStream>;
  create(body: P, options: O = {} as O): Promise<ChatCompletionResponse | ChatCompletionStream> {
    const path = this.route.path(options);
    // Only the core's call options travel on; the route's own (the training's `trailingSlash`) stop here.
    const call = forwardCallOptions(options);
    return traceChat<ChatCompletionResponse | ChatCompletionStream>(
      this.route.tracing,
      this.core.baseUrl,
      withStreamUsage(body as unknown as ChatCompletionCreateParams),
      (request) => (request.stream === true ? this.sendStreaming(path, request, call) : this.send(path, request, call)),
      call.signal ?? undefined,
    );
  }

  private send(path: string, body: ChatCompletionCreateParams, options: ChatRequestOptions): Promise<ChatCompletionResponse> {
    return this.core.request<ChatCompletionResponse>({
      ...options,
      method: 'POST',
      path,
      body,
      headers: { ...this.route.headers, ...options.headers },
      // A POST is not idempotent unless the caller says so; what the service certainly did not run is retried.
      retryUnprocessed: true,
    });
  }

  private async sendStreaming(path: string, body: ChatCompletionCreateParams, options: ChatRequestOptions): Promise<ChatCompletionStream> {
    const response = await this.core.raw({
      ...options,
      method: 'POST',
      path,
      body,
      headers: { accept: 'text/event-stream', ...this.route.headers, ...options.headers },
      retryUnprocessed: true,
    });
    const origin = { method: 'POST', path, requestId: response.requestId, apiError: this.core.apiError.bind(this.core) };
    if (isJsonContentType(response.headers)) throw notAnEventStream(await response.body.text(), origin);
    // A login page or a web app answering at the base URL: read as events it would look like a stream cut short.
    if (isHtml(response.headers)) {
      await response.body.cancel();
      throw this.core.unexpectedBody({ method: 'POST', path }, response, undefined, 'an event stream');
    }
    const chunks = readChatChunks(response.body, origin);
    return new ChatCompletionStream(chunks, () => response.body.cancel(), response.requestId);
  }
}

/**
 * A stream asks for its usage chunk unless the caller set `include_usage`: the inference service's reference advises
 * it, and whether the training service (a vLLM server, which sends none unasked unless told to) sends it unasked is
 * not documented (reference §1.9). The chunk reaches the caller, last, with empty `choices`, on both services alike,
 * as the inference service's documented stream ends.
 */
function withStreamUsage(body: ChatCompletionCreateParams): ChatCompletionCreateParams {
  if (body.stream !== true || body.stream_options?.include_usage !== undefined) return body;
  return { ...body, stream_options: { ...body.stream_options, include_usage: true } };
}
