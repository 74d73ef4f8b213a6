import { type Span, SpanStatusCode } from '@opentelemetry/api';
import { chatErrorAttributes, chatRequestContentAttributes, chatResponseAttributes, errorType } from './attributes.js';
import { sdkLengthLimit } from '../../config/content.js';
import { type ChatSpan, ENDED_CHAT_SPAN } from './chat-span.js';
import { fitToLengthLimit, type ResolvedChatTracingConfig } from './config.js';
import { reportInternalError } from './report.js';
import { ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK, GEN_AI_PROVIDER_OPENAI } from '../../semconv.js';
import { HIDE_CHUNK, observedIterator, passThrough } from './observed-iterator.js';
import { ChatStreamAccumulator } from './stream-accumulator.js';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from './types.js';
import { errorStatusText, recordedErrorText } from '../../tracing/error-text.js';
import { finished, type Unfinished } from '../../tracing/unfinished.js';

/**
 * One traced chat call, handed to a {@link ChatResultSettler} so a caller with its own result type (an SDK's
 * lazy promise, a custom stream class) can report how the call ended without weft knowing that type. Every
 * method is safe to call more than once and never throws; the span ends exactly once.
 */
export interface ChatCall {
  /**
   * The request as sent (with `stream_options.include_usage` added when weft asked for usage); once the span has ended,
   * only its model and `stream`.
   */
  readonly request: ChatCompletionRequest;
  /** Whether the span has ended. */
  readonly ended: boolean;
  /**
   * The default handling of a call's value: a stream (an async iterable, when the request streamed) is observed
   * in place through its `Symbol.asyncIterator` and returned as the same object; anything else is recorded as
   * the response and returned unchanged.
   */
  settle<V>(value: V): V;
  /** Records a non-streamed response and ends the span. */
  succeed(completion: unknown): void;
  /**
   * Records an error (ERROR status, `error.type`, an exception event, the HTTP status) and ends the span. Give the
   * `response` that arrived before the error, if one did (a completion that failed the caller's parsing of it), so
   * that its output and usage are recorded too.
   */
  fail(error: unknown, response?: unknown): void;
  /** Ends the span with what is known, e.g. when the caller took the raw HTTP response and weft will not see the body. */
  end(): void;
  /**
   * The app stopped reading the stream through something weft does not observe, such as an SDK helper that reads the
   * stream for it (openai's `chat.completions.stream()`, whose loop the app left with `break`): the span ends with what
   * was received, as when the app leaves the loop of the stream itself, and not as failed when the helper aborts the
   * request next. Call it before that abort.
   */
  readerLeft(): void;
  /**
   * Takes back the `stream_options.include_usage` weft added to a streamed request, so that the request goes out as
   * the caller gave it, for a caller about to read the raw body, where what weft asked for could not be hidden (openai's
   * `.asResponse()`). Effective while the SDK has not yet serialized the request (openai does so after an `await`, so
   * in the tick of the call); the span then has no usage. Nothing to do when weft added nothing.
   */
  withdrawUsageRequest(): void;
  /**
   * The response has arrived and nothing has read it yet, and may never (an op returned the API promise, and the app
   * dropped it): the span ends with what is known once `value` is garbage-collected, or as the process ends, unless
   * the response is read first.
   */
  awaitReader(value: object): void;
  /**
   * Wraps a stream's chunk iterator: chunks pass through unchanged (minus the usage-only chunk weft asked for)
   * and the span ends when the iteration completes, fails, is stopped early (`break`), or — given the request's
   * `signal` — was aborted. Only the first iterator to be read is observed; the others pass through. Give the
   * stream `source` was taken from as `stream` when it is watched with {@link watchAbandonment}: the iterator
   * keeps it reachable, so a stream that is still being read is never taken for abandoned.
   */
  observeChunks<C>(source: AsyncIterator<C>, signal?: AbortSignal, stream?: object): AsyncIterableIterator<C>;
  /**
   * Ends the span with what was received if `stream` is garbage-collected before its iteration finished. Pass
   * the same `stream` to {@link observeChunks}, or an app that keeps only the iterator loses its span mid-way.
   */
  watchAbandonment(stream: object): void;
}

/** The shape of openai's `Stream` (and of streams built like it). */
interface IteratorFactoryStream {
  iterator: (...args: unknown[]) => AsyncIterator<unknown>;
  controller?: { signal?: AbortSignal; abort?: unknown } | null;
}

// Holds only the recorder (never the stream), so it cannot keep an abandoned stream alive. A stream aborted and then
// dropped unread ends as failed: the recorder keeps the stream's signal (which holds nothing of the stream).
const abandonedStreams = new FinalizationRegistry<ChatCallRecorder>((call) => call.finishStream(call.streamSignal));

/** The {@link ChatCall} implementation: owns the span and the stream accumulator. */
export class ChatCallRecorder implements ChatCall, Unfinished {
  private done = false;
  private observing = false;
  /** Registered for abandonment by garbage collection: streams, and responses nobody has read (awaitReader). */
  private watched = false;
  /**
   * The call itself completed, whatever becomes of its value: its response arrived unread (awaitReader), or its
   * reader left after the last choice, while weft reads on for the usage (usageStillToCome).
   */
  private completed = false;
  /**
   * The request's content (messages, system instructions, tool definitions), recorded as the span ends rather
   * than before the call: the JSON of a long conversation would delay the request, and its first chunk. A copy
   * taken at the call (see `requestSnapshot`), so that what the app changes after the call is not recorded.
   */
  private pendingContent: ChatCompletionRequest | undefined;
  private accumulator: ChatStreamAccumulator | undefined;
  private firstChunkAt: number | undefined;
  /** Whether an abort of the stream's request ends the span even if nothing reads it after (see watchAbort). */
  private abortWatched = false;
  /** The listener watchAbort() put on the stream's signal, taken off as the call ends: the app's signal may live long. */
  private abortListener: (() => void) | undefined;
  private readonly startedAt = performance.now();
  /**
   * The abort signal of the stream observed in place (its own, or else the caller's, if given): an abort is an error,
   * even unread.
   */
  streamSignal: AbortSignal | undefined;
  /** The server sends a stream's usage chunk unasked (the platform's services): it comes as if the request asked. */
  serverSendsUsage = false;
  /** The span's `gen_ai.provider.name`, which decides whether OpenAI's own response attributes are recorded. */
  providerName: string = GEN_AI_PROVIDER_OPENAI;

  constructor(
    /** Where the span comes from; everything is recorded on it as the call ends. */
    private span: ChatSpan,
    public request: ChatCompletionRequest,
    /** The request as the app gave it, copied at the call: its content is recorded as the span ends. */
    snapshot: ChatCompletionRequest,
    private readonly config: ResolvedChatTracingConfig,
    /** Whether weft added `include_usage`, and so must hide its effects from the caller. */
    private readonly hideUsage: boolean,
  ) {
    this.pendingContent = snapshot;
  }

  get ended(): boolean {
    return this.done;
  }

  settle<V>(value: V): V {
    if (this.request.stream === true && isAsyncIterable(value)) return this.observeInPlace(value);
    this.succeed(value);
    return value;
  }

  succeed(completion: unknown): void {
    if (this.done) return;
    this.record('response', (span, config) => {
      if (completion && typeof completion === 'object') {
        span.setAttributes(chatResponseAttributes(completion as ChatCompletion, config, this.providerName));
      }
    });
    this.end();
  }

  fail(error: unknown, response?: unknown): void {
    if (this.done) return;
    if (this.abortedWhenWhole(this.streamSignal)) {
      this.finishStream(undefined);
      return;
    }
    this.record('error', (span, config) => {
      if (response && typeof response === 'object') span.setAttributes(chatResponseAttributes(response as ChatCompletion, config, this.providerName));
      this.recordStreamSoFar(span, config);
      span.setAttributes(chatErrorAttributes(error));
      const text = recordedErrorText(error, config.maxAttributeLength);
      span.recordException({ name: errorType(error), ...text }, this.span.now());
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorStatusText(error, text.message) });
    });
    this.end();
  }

  end(): void {
    if (this.done) return;
    this.record('request content', (span, config) => this.recordRequestContent(span, config));
    this.done = true;
    finished(this);
    if (this.watched) abandonedStreams.unregister(this);
    if (this.abortListener) {
      this.streamSignal?.removeEventListener('abort', this.abortListener);
      this.abortListener = undefined;
    }
    try {
      this.span.open().end(this.span.now());
    } catch (error) {
      reportInternalError('span end', error);
    }
    // The app's objects may keep an ended call reachable for long (openai 6 never removes its listener from a signal
    // the app passes to every call, and the stream weft observed holds the call): it keeps nothing of the content.
    this.span = ENDED_CHAT_SPAN;
    this.accumulator = undefined;
    this.request = { model: this.request.model, stream: this.request.stream, messages: [] };
  }

  readerLeft(): void {
    // No signal: whatever is aborted from now on, the reader left first.
    this.finishStream(undefined);
  }

  withdrawUsageRequest(): void {
    if (!this.hideUsage || this.done) return;
    const sent = this.request as { stream_options?: unknown };
    // The request weft sends is its own copy (see withUsageRequested): the caller's object was never changed.
    const given = this.pendingContent?.stream_options;
    if (given === undefined) delete sent.stream_options;
    else sent.stream_options = given;
  }

  awaitReader(value: object): void {
    if (this.done) return;
    this.completed = true;
    this.watchAbandonment(value);
  }

  /** The process is ending before the call did: failed, with what was received; or, if it completed, ended with it. */
  endUnfinished(error: Error): void {
    if (this.completed) this.finishStream(undefined);
    else this.fail(error);
  }

  /** Ends a stream's span: as failed if `signal` was aborted before the whole response came, else with what was received. */
  finishStream(signal: AbortSignal | undefined): void {
    if (this.done) return;
    if (signal?.aborted && !this.abortedWhenWhole(signal)) {
      this.fail(abortReason(signal));
      return;
    }
    this.record('stream end', (span, config) => this.recordStreamSoFar(span, config));
    this.end();
  }

  usageStillToCome(signal: AbortSignal | undefined, stream: object | undefined): (() => void) | undefined {
    if (this.done || signal === undefined || signal.aborted) return undefined;
    if (this.request.stream_options?.include_usage !== true && !this.serverSendsUsage) return undefined;
    if (this.accumulator?.isWhole(false) !== true || this.accumulator.isWhole(true)) return undefined;
    // Only a request weft can stop: if the usage never comes, the request must not stay open for weft's sake.
    const controller = (stream as Partial<IteratorFactoryStream> | undefined)?.controller;
    if (controller?.signal !== signal || typeof controller.abort !== 'function') return undefined;
    const abort = controller.abort as () => void;
    this.completed = true;
    return () => abort.call(controller);
  }

  watchAbandonment(stream: object): void {
    if (this.done) return;
    this.watched = true;
    abandonedStreams.register(stream, this, this);
  }

  observeChunks<C>(source: AsyncIterator<C>, signal?: AbortSignal, stream?: object): AsyncIterableIterator<C> {
    // A stream first read after its span ended (weft shut down meanwhile) still hides the usage weft asked for.
    if (this.observing || (this.done && !this.hideUsage)) return passThrough(source);
    return observedIterator(source, this, signal, stream);
  }

  claimChunks(): boolean {
    if (this.observing) return false;
    this.observing = true;
    return true;
  }

  /**
   * Records one chunk; returns what the caller gets: the chunk without the `usage: null` weft asked for (see
   * {@link withoutUsage}), or {@link HIDE_CHUNK} for the usage-only chunk.
   */
  onChunk(chunk: unknown): unknown {
    // On the path of every chunk: no closure; no allocation beyond what the accumulator keeps and, when weft asked
    // for usage, the copy that hides it.
    if (!this.done) {
      try {
        if (this.firstChunkAt === undefined) this.firstChunkAt = performance.now();
        else if (!this.abortWatched) this.watchAbort();
        this.accumulator ??= new ChatStreamAccumulator(this.config.captureOutput, choiceCount(this.request.n));
        this.accumulator.add(chunk as ChatCompletionChunk);
      } catch (error) {
        reportInternalError('stream chunk', error);
      }
    }
    // Even after the span ended, what weft asked for stays hidden: the caller never asked for it.
    if (!this.hideUsage || !chunk || typeof chunk !== 'object') return chunk;
    const { choices, usage } = chunk as { choices?: unknown; usage?: unknown };
    // The usage chunk has no choices: `[]` as OpenAI sends it, `null` (MiniMax) or no key at all (Fireworks, DeepInfra).
    if (usage && !(Array.isArray(choices) && choices.length > 0)) return HIDE_CHUNK;
    // With include_usage every other chunk carries `usage: null`, which the caller would not have seen; some servers
    // put the usage itself on the chunk that finishes the last choice instead of one of its own.
    return usage === undefined ? chunk : withoutUsage(chunk);
  }

  /**
   * Observes a stream without replacing it. A stream built like openai's `Stream` (an `iterator()` factory that
   * feeds `Symbol.asyncIterator`, `tee()` and `toReadableStream()`, and an AbortController in `controller`) has
   * its factory wrapped, so every way of reading it is seen and an abort is recognised; any other async
   * iterable has its `Symbol.asyncIterator` wrapped, and its `cancel()` if it has one (weft's own
   * `ChatCompletionStream`): cancelling ends the span like leaving the loop early, even mid-iteration, when
   * the stream stops its reader itself and the iterator would not see it.
   */
  private observeInPlace<V>(stream: V & AsyncIterable<unknown>): V {
    const call = this;
    const target = stream as unknown as IteratorFactoryStream;
    try {
      // openai's streams carry their AbortController; openai 4.0's has no iterator() factory, but has the controller.
      const own = typeof target.controller === 'object' ? target.controller?.signal : undefined;
      const signal = own ?? this.streamSignal;
      this.streamSignal = signal;
      // Only a signal of the stream's own request is watched (see watchAbort): the caller's, which weft's own client
      // is given, may be shared by many calls, and already has the client's listener for each of them.
      if (!own) this.abortWatched = true;
      if (typeof target.iterator === 'function' && typeof target.controller === 'object') {
        const factory = target.iterator;
        // Named as the method it stands for: an app (or an op recording the stream as its output) sees `iterator`.
        target.iterator = function iterator(this: unknown, ...args: unknown[]) {
          return call.observeChunks(factory.apply(this, args), signal, stream);
        };
      } else {
        const original = stream[Symbol.asyncIterator];
        Object.defineProperty(stream, Symbol.asyncIterator, {
          configurable: true,
          writable: true,
          value: function observedAsyncIterator(this: unknown) {
            return call.observeChunks(original.call(this), signal, stream);
          },
        });
        const cancel = (stream as { cancel?: unknown }).cancel;
        if (typeof cancel === 'function') {
          Object.defineProperty(stream, 'cancel', {
            configurable: true,
            writable: true,
            value: function observedCancel(this: unknown, ...args: unknown[]) {
              call.finishStream(signal);
              return cancel.apply(this, args);
            },
          });
        }
      }
    } catch (error) {
      // A frozen stream cannot be observed in place; returning it unobserved keeps the caller's type.
      reportInternalError('stream observation', error);
      this.end();
      return stream;
    }
    this.watchAbandonment(stream);
    return stream;
  }

  /**
   * From the second chunk on, ends the span as the stream's request is aborted, whether or not anything reads the
   * stream again: an app may abort and never touch the stream after (LangChain's `stream()` on its signal throws at
   * once), which would leave the span open until the stream is collected, its duration and status wrong. Not
   * before the app has its first chunk: the first listener on a signal costs Node 20 about 4 µs. A method of its
   * own, so that the listener holds the call and the signal only, never the stream: an app's long-lived signal,
   * which openai links to each request's, would otherwise keep every stream reachable.
   */
  private watchAbort(): void {
    this.abortWatched = true;
    const signal = this.streamSignal;
    if (!signal || signal.aborted) return;
    this.abortListener = () => {
      // Once the reader has had its turn: openai aborts the request itself as a read fails (the error the app gets
      // is the one to record), as a helper's reader leaves or cancels (which ends the span as left), and weft stops a
      // request whose usage never came (see usageStillToCome). Only an abort nothing read after is left to end here.
      setImmediate(() => {
        if (!this.completed) this.finishStream(signal);
      });
    };
    signal.addEventListener('abort', this.abortListener);
  }

  /**
   * Whether `signal` was aborted once the whole response had arrived: that abort stopped nothing. openai aborts a
   * stream's request itself when its reader stops, and before weft's iterator hears of it: `toReadableStream()`'s
   * `cancel()`, and the `chat.completions.stream()` helper on `break`, which may have read the stream to its end.
   */
  private abortedWhenWhole(signal: AbortSignal | undefined): boolean {
    return signal?.aborted === true && this.accumulator?.isWhole(this.request.stream_options?.include_usage === true) === true;
  }

  private recordRequestContent(span: Span, config: ResolvedChatTracingConfig): void {
    const request = this.pendingContent;
    if (!request) return;
    this.pendingContent = undefined;
    span.setAttributes(chatRequestContentAttributes(request, config));
  }

  private recordStreamSoFar(span: Span, config: ResolvedChatTracingConfig): void {
    if (this.firstChunkAt !== undefined) {
      span.setAttribute(ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK, (this.firstChunkAt - this.startedAt) / 1000);
    }
    if (this.accumulator) span.setAttributes(chatResponseAttributes(this.accumulator.toCompletion(), config, this.providerName));
  }

  /**
   * Runs `fn` on the span, if it records, with the config fitted to the span's attribute length limit (content
   * is shortened to fit, rather than left to the SDK to cut mid-JSON). What fails is reported, never thrown.
   */
  private record(kind: string, fn: (span: Span, config: ResolvedChatTracingConfig) => void): void {
    try {
      const span = this.span.open();
      if (span.isRecording()) fn(span, fitToLengthLimit(this.config, sdkLengthLimit(span)));
    } catch (error) {
      reportInternalError(kind, error);
    }
  }
}

/**
 * `chunk` without its `usage` key. A plain object, as the SDK parses each chunk, is copied with its other keys in
 * their order: deleting a key other than the last one turns an object into a slow dictionary-mode one, for weft and
 * for the app to read, and in OpenAI's own streams `obfuscation` follows `usage` (deleting cost 36 µs more per
 * 20-chunk stream than with `usage` last, on Node 20). Any other object (a class's instance) loses the key in place
 * and keeps its prototype, unless it cannot be changed (frozen, say): then it is copied instead of throwing into the app.
 */
function withoutUsage(chunk: object): object {
  if (Object.getPrototypeOf(chunk) !== Object.prototype && Reflect.deleteProperty(chunk, 'usage')) return chunk;
  const { usage: _added, ...shown } = chunk as { usage?: unknown };
  return shown;
}

/** The choices a request asked for: `n`, when it is a count. */
function choiceCount(n: unknown): number {
  return Number.isSafeInteger(n) && (n as number) > 1 ? (n as number) : 1;
}

function abortReason(signal: AbortSignal): unknown {
  const reason: unknown = signal.reason;
  if (reason !== undefined) return reason;
  const error = new Error('The operation was aborted.');
  error.name = 'AbortError';
  return error;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as Partial<AsyncIterable<unknown>>)[Symbol.asyncIterator] === 'function'
  );
}
