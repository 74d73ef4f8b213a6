import { type Attributes, type Context, context, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR } from './attributes.js';
import { inputsValue, outputValue } from './content.js';
import { reportTracingFailure } from './failures.js';
import { type ContentOptions, resolveContentOptions } from './settings.js';
import { type SpanState, trackSpan } from './span-state.js';
import { weftTracer } from './tracer.js';

/** What every call of one op (or one `withSpan`) shares, computed once when it is made. */
export interface CallPlan {
  readonly name: string;
  /** Kind, display name and custom attributes: the same for every call. */
  readonly attributes: Attributes;
  /** Per-op privacy overrides, applied over the process-wide settings at each call. */
  readonly content: ContentOptions | undefined;
}

/** A span weft has started for one call, with the context that makes it the parent of what runs inside. */
export interface ActiveCall {
  readonly span: Span;
  readonly context: Context;
  readonly state: SpanState;
}

/**
 * Starts the span of one call under `parent`, with `inputs()` (built only when the span records and content is
 * captured). Returns `undefined` if weft itself failed: the call then runs untraced.
 */
export function startCall(
  plan: CallPlan,
  parent: Context,
  inputs: (() => Record<string, unknown>) | undefined,
): ActiveCall | undefined {
  try {
    const span = weftTracer().startSpan(plan.name, { attributes: plan.attributes }, parent);
    const state: SpanState = { name: plan.name, settings: resolveContentOptions(plan.content), outputSet: false };
    if (span.isRecording()) {
      trackSpan(span, state);
      if (inputs && state.settings.captureContent) {
        const value = inputsValue(inputs(), state.settings, plan.name);
        if (value !== undefined) span.setAttribute(ATTR.inputs, value);
      }
    }
    return { span, context: trace.setSpan(parent, span), state };
  } catch (error) {
    reportTracingFailure('start', error);
    return undefined;
  }
}

/** Records the output (unless the code set one itself) and ends the span. Never throws. */
export function succeed(call: ActiveCall, output: unknown): void {
  try {
    if (!call.state.outputSet && call.span.isRecording()) {
      const value = outputValue(output, call.state.settings, call.state.name);
      if (value !== undefined) call.span.setAttribute(ATTR.output, value);
    }
  } catch (error) {
    reportTracingFailure('output', error);
  }
  endSafely(call.span);
}

/** Records an error (ERROR status with its message, and an `exception` event) and ends the span. Never throws. */
export function fail(call: ActiveCall, error: unknown): void {
  try {
    const isError = error instanceof Error;
    call.span.recordException(isError ? error : { name: 'non-Error thrown', message: String(error) });
    call.span.setStatus({ code: SpanStatusCode.ERROR, message: isError ? error.message : String(error) });
  } catch (failure) {
    reportTracingFailure('error', failure);
  }
  endSafely(call.span);
}

function endSafely(span: Span): void {
  try {
    span.end();
  } catch (error) {
    reportTracingFailure('end', error);
  }
}

/**
 * Ends the span when `result` is settled and returns what the caller should get. A native promise is followed
 * with `then` (a native promise's identity carries nothing, and the app still sees its own rejection). Any other
 * thenable (e.g. the `openai` package's APIPromise, with `withResponse()`) is returned as the very same object
 * and followed on a side branch; plain values end the span at once.
 */
export function settle<R>(call: ActiveCall, result: R): R {
  if (!isThenable(result)) {
    succeed(call, result);
    return result;
  }
  if (result instanceof Promise && result.constructor === Promise) {
    return result.then(
      (value: unknown) => {
        succeed(call, value);
        return value;
      },
      (error: unknown) => {
        fail(call, error);
        throw error;
      },
    ) as R;
  }
  try {
    result.then(
      (value: unknown) => succeed(call, value),
      (error: unknown) => fail(call, error),
    );
  } catch (error) {
    reportTracingFailure('then', error);
    endSafely(call.span);
  }
  return result;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Runs `fn` as one traced call: the span starts under the active context, `fn` runs with the span active, its
 * result settles the span, and an error is recorded and rethrown as the same instance.
 */
export function runTraced<R>(
  plan: CallPlan,
  inputs: (() => Record<string, unknown>) | undefined,
  fn: (...args: never[]) => R,
  thisArg: unknown,
  args: readonly unknown[],
): R {
  const call = startCall(plan, context.active(), inputs);
  if (!call) return Reflect.apply(fn, thisArg, args);
  let result: R;
  try {
    result = context.with(call.context, () => Reflect.apply(fn, thisArg, args));
  } catch (error) {
    fail(call, error);
    throw error;
  }
  return settle(call, result);
}
