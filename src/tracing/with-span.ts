import { INVALID_SPAN_CONTEXT, trace } from '@opentelemetry/api';
import { callPlan, type TraceOptions } from './op.js';
import { type SpanHandle, spanHandle } from './span-handle.js';
import { fail, settle, startCall } from './traced-call.js';
import { activeContext, withActiveContext } from './active-context.js';

/** Options of {@link withSpan}. */
export interface WithSpanOptions extends TraceOptions {
  /** The block's inputs, recorded like an op's named arguments. */
  inputs?: Record<string, unknown> | undefined;
}

/**
 * Runs a block as one span named `name`, nested under the current span. The block gets a {@link SpanHandle}
 * to set inputs, output and attributes; its return value (awaited, if a promise) is the output unless it set
 * one. Errors are recorded and rethrown as the same instance. Returns exactly what the block returns.
 *
 * @example
 * const docs = await withSpan('retrieve', async (span) => {
 *   span.setInputs({ query });
 *   return index.search(query, 5);
 * }, { kind: 'retriever' });
 */
export function withSpan<R>(name: string, fn: (span: SpanHandle) => R, options?: WithSpanOptions): R {
  const given = options?.inputs;
  const call = startCall(callPlan(name, options), activeContext(), given ? () => given : undefined);
  // weft failed to start the span: the block still runs, with a handle whose calls go nowhere.
  if (!call) return fn(spanHandle(trace.wrapSpanContext(INVALID_SPAN_CONTEXT)));
  let result: R;
  try {
    result = withActiveContext(call.context, fn, undefined, spanHandle(call.span));
  } catch (error) {
    fail(call, error);
    throw error;
  }
  return settle(call, result);
}
