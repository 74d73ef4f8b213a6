import { type AttributeValue, type Context, propagation, trace } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR, customKeys, moveShadowingCustom, separateCustomPaths } from './attributes.js';
import { BAGGAGE_KEYS, scopeAttributesWithin, scopeOf } from './context.js';
import { sdkLengthLimit } from '../config/content.js';
import { reportTracingFailure } from './failures.js';
import { reportOnce } from '../diagnostics.js';
import { ATTR_GEN_AI_CONVERSATION_ID, ATTR_GEN_AI_OPERATION_NAME } from '../semconv.js';

/** Options of {@link WeftContextSpanProcessor}. */
export interface WeftContextSpanProcessorOptions {
  /**
   * When a span starts outside any `withContext()` scope, take the thread, user and session from W3C baggage
   * (as another service wrote it with `baggage: true`). Turns are not marked from baggage: the turn began in the
   * service that set it. Default false.
   */
  fromBaggage?: boolean | undefined;
}

/**
 * Copies the `withContext()` / `withThread()` values in scope onto every span as it starts: weft's own spans,
 * the instrumentation's chat spans, and any other library's. Marks the outermost span of each turn with
 * `wandb.is_turn`. A GenAI span (one with `gen_ai.operation.name`, from weft or another instrumentation) also
 * gets the thread as `gen_ai.conversation.id`, the conventions' name for it. As a span ends, a custom attribute
 * that is also the prefix of another (`wandb.attributes.model` and `wandb.attributes.model.version`, which the
 * trace service rejects the whole span for) moves to `<key>._value`, and a custom `model` on a span that has a model
 * of its own (a chat span) moves to `model_custom`. `register()` installs it first in its
 * pipeline; add it yourself to a provider of your own, before the processor that exports.
 *
 * @example
 * new NodeTracerProvider({ spanProcessors: [new WeftContextSpanProcessor(), weftSpanProcessor()] });
 */
export class WeftContextSpanProcessor implements SpanProcessor {
  private readonly fromBaggage: boolean;
  // The thread each span of a thread belongs to, so a child can tell whether its parent is in the same turn.
  private readonly threadOf = new WeakMap<object, string>();

  constructor(options: WeftContextSpanProcessorOptions = {}) {
    this.fromBaggage = options.fromBaggage ?? false;
  }

  onStart(span: Span, parentContext: Context): void {
    try {
      const scope = scopeOf(parentContext);
      if (scope) {
        // Within the span's own attribute limit (a provider's spanLimits): the SDK would cut metadata's JSON mid-way.
        const attributes = scopeAttributesWithin(scope, sdkLengthLimit(span));
        span.setAttributes(attributes);
        const threadId = scope.values.threadId;
        // A thread id that cannot be recorded (see context.ts) has no attribute: no thread, and no turn, on the span.
        if (threadId === undefined || attributes[ATTR.threadId] === undefined) return;
        setConversationId(span, attributes[ATTR.threadId]);
        if (scope.turn) {
          const parent = trace.getSpan(parentContext);
          if (!parent || this.threadOf.get(parent) !== threadId) span.setAttribute(ATTR.isTurn, true);
        }
        this.threadOf.set(span, threadId);
      } else if (this.fromBaggage) {
        this.copyBaggage(span, parentContext);
      }
    } catch (error) {
      reportTracingFailure('context-processor', error);
    }
  }

  private copyBaggage(span: Span, parentContext: Context): void {
    const bag = propagation.getBaggage(parentContext);
    if (!bag) return;
    for (const key of Object.values(BAGGAGE_KEYS)) {
      const entry = bag.getEntry(key);
      if (entry?.value) span.setAttribute(key, entry.value);
    }
    // As withContext() records them: the trace service reads neither `user.id` nor `session.id` itself.
    const userId = bag.getEntry(BAGGAGE_KEYS.userId)?.value;
    if (userId) span.setAttribute(ATTR.customUserId, userId);
    const sessionId = bag.getEntry(BAGGAGE_KEYS.sessionId)?.value;
    if (sessionId) span.setAttribute(ATTR.customSessionId, sessionId);
    setConversationId(span, bag.getEntry(BAGGAGE_KEYS.threadId)?.value);
  }

  // Custom attribute keys come from op options, withContext() metadata and span handles, at different times: only
  // the ending span has them all. The SDK calls onEnding, while the span is still its own, before any processor's
  // onEnd; an older SDK without it gets the same fix in onEnd, which then must come before the exporting processor.
  private sawOnEnding = false;

  onEnding(span: Span): void {
    this.sawOnEnding = true;
    moveConflictingCustom(span);
  }

  onEnd(span: ReadableSpan): void {
    if (!this.sawOnEnding) moveConflictingCustom(span);
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The thread as `gen_ai.conversation.id`, on a GenAI span only: on others the name would claim what they are not. */
function setConversationId(span: Span, threadId: AttributeValue | undefined): void {
  if (threadId && span.attributes[ATTR_GEN_AI_OPERATION_NAME] !== undefined) span.setAttribute(ATTR_GEN_AI_CONVERSATION_ID, threadId);
}

/**
 * Moves custom attributes that would stand in for the field keying a call's usage (its model), and those whose
 * paths conflict; says so once of each (see {@link moveShadowingCustom} and {@link separateCustomPaths}). A span
 * with no custom attribute, most of them, costs one pass over its keys.
 */
function moveConflictingCustom(span: ReadableSpan): void {
  try {
    const custom = customKeys(span.attributes);
    if (custom === undefined) return;
    const shadowing = moveShadowingCustom(span.attributes, custom);
    if (shadowing !== undefined) {
      const field = shadowing.key.slice(ATTR.customPrefix.length).split('.')[0];
      const where = shadowing.to ? `was moved to "${shadowing.to}"` : 'was left out (its new key was taken)';
      reportOnce(
        'tracing-attribute-shadowing',
        `span "${span.name}": custom attribute "${shadowing.key}" ${where} on this span: the trace service takes the ` +
          `call's "${field}" from the span itself and keys its token usage and cost by it, which a custom "${field}" ` +
          `would replace. Spans that set no ${field} keep it as it is (this is reported once).`,
      );
    }
    const moved = separateCustomPaths(span.attributes, custom);
    if (moved === undefined) return;
    reportOnce(
      'tracing-attribute-paths',
      `span "${span.name}": custom attribute "${moved}" is also the prefix of another custom attribute, which the ` +
        `trace service rejects the whole span for; its value was moved to "${moved}._value". Use keys that do not ` +
        'extend one another (this is reported once).',
    );
  } catch (error) {
    reportTracingFailure('attribute-paths', error);
  }
}
