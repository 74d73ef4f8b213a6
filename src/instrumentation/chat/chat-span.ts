import {
  type Attributes,
  type AttributeValue,
  type Context,
  type Exception,
  type HrTime,
  INVALID_SPAN_CONTEXT,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type TimeInput,
  type Tracer,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { addHrTimes, isTimeInput, isTracingSuppressed, millisToHrTime } from '@opentelemetry/core';

/**
 * Where a chat call's span comes from. Everything a call records, it records as it ends (the response, the
 * stream's accumulated output, the error, the request's content), through {@link ChatSpan.open}.
 */
export interface ChatSpan {
  /** The context to run the request in, with the span active. */
  readonly context: Context;
  /** The span, started now if it was not yet. */
  open(): Span;
  /** The time of an event or of the end; undefined leaves it to the span's own clock. */
  now(): HrTime | undefined;
}

/**
 * What an ended call keeps in place of its span: nothing records after the end, and a call the app's objects keep
 * reachable (a dropped stream held by a signal that lives on) must not keep its span, and the content on it, too.
 */
export const ENDED_CHAT_SPAN: ChatSpan = {
  context: ROOT_CONTEXT,
  open: () => trace.wrapSpanContext(INVALID_SPAN_CONTEXT),
  now: () => undefined,
};

/** A span's name and options, as the call starts. */
export interface SpanStart {
  name: string;
  options: SpanOptions;
}

/** A span started as the call starts. */
export function spanStartedNow(span: Span, parent: Context): ChatSpan {
  return { context: trace.setSpan(parent, span), open: () => span, now: () => undefined };
}

/**
 * A span that starts when it is first read, with the time the call started: when code run inside the call reads it
 * (an HTTP instrumentation parenting the request's span to it, a span started inside `invoke`), or else as the
 * call ends. So none of its cost (attributes, sampling, ids, span processors' `onStart`) is paid before the request
 * is sent, nor before a stream's first chunk reaches the app. `describe` gives, in a new object, what the span
 * would have started with (from a copy of the request taken at the start): the sampler and `onStart` see the same
 * name, kind, attributes and parent. Only for a tracer known to record it ({@link startsWhenRead}): a call whose span
 * would not record must not be touched at all.
 */
export class SpanStartedWhenRead implements ChatSpan, Span {
  readonly context: Context;
  #span: Span | undefined;
  // Times as the SDK takes them for a span it starts itself: the start from the wall clock, in whole ms, and what
  // follows from the monotonic clock, added to it. Spans of one trace then sort the same as if this one had
  // started with the call.
  readonly #startTime = millisToHrTime(Date.now());
  readonly #startedAt = performance.now();

  constructor(
    private readonly tracer: Tracer,
    private readonly parent: Context,
    private readonly describe: () => SpanStart,
  ) {
    this.context = trace.setSpan(parent, this);
  }

  open(): Span {
    if (!this.#span) {
      const { name, options } = this.describe();
      // describe() made `options` for this span alone; a spread with an added key would take V8's slow path.
      options.startTime = this.#startTime;
      this.#span = this.tracer.startSpan(name, options, this.parent);
    }
    return this.#span;
  }

  now(): HrTime {
    return addHrTimes(this.#startTime, millisToHrTime(performance.now() - this.#startedAt));
  }

  // The Span interface, for whoever reads it from the context: each starts the span, then does what it says.
  // Times left out are taken now: a span given its start time takes later ones from the wall clock, in ms.

  spanContext(): SpanContext {
    return this.open().spanContext();
  }

  setAttribute(key: string, value: AttributeValue): this {
    this.open().setAttribute(key, value);
    return this;
  }

  setAttributes(attributes: Attributes): this {
    this.open().setAttributes(attributes);
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    const timeGiven = time ?? (isTimeInput(attributesOrTime) ? attributesOrTime : undefined);
    const attributes = isTimeInput(attributesOrTime) ? undefined : attributesOrTime;
    this.open().addEvent(name, attributes, timeGiven ?? this.now());
    return this;
  }

  addLink(link: Link): this {
    this.open().addLink(link);
    return this;
  }

  addLinks(links: Link[]): this {
    this.open().addLinks(links);
    return this;
  }

  setStatus(status: SpanStatus): this {
    this.open().setStatus(status);
    return this;
  }

  updateName(name: string): this {
    this.open().updateName(name);
    return this;
  }

  end(endTime?: TimeInput): void {
    this.open().end(endTime ?? this.now());
  }

  isRecording(): boolean {
    return this.open().isRecording();
  }

  recordException(exception: Exception, time?: TimeInput): void {
    this.open().recordException(exception, time ?? this.now());
  }
}

const SAMPLES_EVERY_ROOT = new Set([
  'AlwaysOnSampler',
  'ParentBased{root=AlwaysOnSampler, remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler, localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}',
]);
const knownToRecord = new WeakMap<Tracer, boolean>();

/**
 * Whether a span of `tracer` under `parent` is sure to record, so that it may start when first read: the tracer is
 * the SDK's, with the sampler it has by default (parent-based, every root span sampled) or one that samples
 * everything, and `parent` has no span, or a sampled one, and does not suppress tracing. Anything else (another
 * sampler, another tracer, an unsampled parent) starts its span at once, and is left untouched if it does not
 * record.
 */
export function startsWhenRead(tracer: Tracer, parent: Context): boolean {
  let records = knownToRecord.get(tracer);
  if (records === undefined) {
    // The sampler is the SDK tracer's own field; its description is the Sampler interface's toString().
    const sampler = (tracer as { _sampler?: { toString?: () => string } })._sampler;
    records = typeof sampler?.toString === 'function' && SAMPLES_EVERY_ROOT.has(sampler.toString());
    knownToRecord.set(tracer, records);
  }
  if (!records || isTracingSuppressed(parent)) return false;
  const parentSpan = trace.getSpanContext(parent);
  return parentSpan === undefined || (parentSpan.traceFlags & TraceFlags.SAMPLED) !== 0;
}
