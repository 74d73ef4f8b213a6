import { INVALID_SPAN_CONTEXT, type Span, trace } from '@opentelemetry/api';
import { activeContext } from './active-context.js';
import { ATTR, customAttributes, recordableText } from './attributes.js';
import { inputsValue, outputValue } from './content.js';
import { reportTracingFailure } from './failures.js';
import { contentOptions, fitToSpan } from './content-options.js';
import { spanState } from './span-state.js';

/**
 * A small handle on a span, for setting what the trace service shows from inside the traced code. Every method
 * is safe to call on any span (also a non-recording one) and never throws; each returns the handle for chaining.
 *
 * @example
 * await withSpan('retrieve', async (span) => {
 *   const docs = await search(query);
 *   span.setAttributes({ hits: docs.length });
 *   return docs;
 * });
 */
export interface SpanHandle {
  /** The underlying OpenTelemetry span, for anything the handle does not cover. */
  readonly span: Span;
  /** Replaces the call's inputs with this object of named values (recorded as the `inputs` attribute). */
  setInputs(inputs: Record<string, unknown>): SpanHandle;
  /** Sets the call's output; it wins over the function's return value. */
  setOutput(output: unknown): SpanHandle;
  /** Sets a custom attribute, shown in the call's attributes (recorded as `wandb.attributes.<key>`). */
  setAttribute(key: string, value: unknown): SpanHandle;
  /** Sets several custom attributes at once. */
  setAttributes(attributes: Record<string, unknown>): SpanHandle;
  /** Sets the name the call is shown under (`wandb.display_name`); the op name is unchanged. */
  setDisplayName(name: string): SpanHandle;
  /** Sets the call's kind (`weave.span.kind`), e.g. `agent`, `tool`, `llm`, `retriever`. */
  setKind(kind: string): SpanHandle;
}

class Handle implements SpanHandle {
  constructor(readonly span: Span) {}

  private guarded(what: string, work: () => void): this {
    // A handle kept past its span's end changes nothing, quietly: the SDK would log a warning at every call.
    if (!this.span.isRecording()) return this;
    try {
      work();
    } catch (error) {
      reportTracingFailure(`span-handle-${what}`, error);
    }
    return this;
  }

  setInputs(inputs: Record<string, unknown>): this {
    return this.guarded('inputs', () => {
      const state = spanState(this.span);
      const value = inputsValue(inputs, state?.settings ?? contentOptions(), state?.name ?? spanName(this.span));
      if (value !== undefined) this.span.setAttribute(ATTR.inputs, value);
    });
  }

  setOutput(output: unknown): this {
    return this.guarded('output', () => {
      const state = spanState(this.span);
      if (state) state.outputSet = true;
      const value = outputValue(output, state?.settings ?? contentOptions(), state?.name ?? spanName(this.span));
      if (value !== undefined) this.span.setAttribute(ATTR.output, value);
    });
  }

  setAttribute(key: string, value: unknown): this {
    return this.setAttributes({ [key]: value });
  }

  setAttributes(attributes: Record<string, unknown>): this {
    return this.guarded('attributes', () => {
      // Within the span's own limit (an op's maxAttributeLength, a provider's spanLimits), as its inputs and output
      // are: the SDK would cut a longer value's JSON mid-way.
      const settings = spanState(this.span)?.settings ?? fitToSpan(contentOptions(), this.span);
      this.span.setAttributes(customAttributes(attributes, settings.maxAttributeLength));
    });
  }

  setDisplayName(name: string): this {
    return this.guarded('display-name', () => {
      const recorded = typeof name === 'string' ? recordableText(name, 'display name') : name;
      if (recorded !== undefined) this.span.setAttribute(ATTR.displayName, recorded);
    });
  }

  setKind(kind: string): this {
    return this.guarded('kind', () => this.span.setAttribute(ATTR.kind, kind));
  }
}

function spanName(span: Span): string {
  const name = (span as { name?: unknown }).name;
  return typeof name === 'string' ? name : '';
}

/** A handle on `span`. */
export function spanHandle(span: Span): SpanHandle {
  return new Handle(span);
}

/**
 * A handle on the active span: the innermost `op()`, `withSpan()` or other span in scope. Outside any span it
 * returns a handle on a non-recording span, so calls are harmless no-ops.
 *
 * @example
 * const answer = op(async function answer(question: string) {
 *   currentSpan().setAttributes({ model: 'small' });
 *   return llm(question);
 * });
 */
export function currentSpan(): SpanHandle {
  return new Handle(trace.getSpan(activeContext()) ?? trace.wrapSpanContext(INVALID_SPAN_CONTEXT));
}
