import { type Attributes, type Context, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR, refitCustomAttributes } from './attributes.js';
import { inputsValue, outputValue } from './content.js';
import { reportTracingFailure } from './failures.js';
import { type ApiPromiseLike, followApiPromise } from './follow-api-promise.js';
import { errorClassName, errorStatusText, recordedErrorText } from './error-text.js';
import { type ContentOptions, fitToSpan, resolveContentOptions } from './content-options.js';
import { type SpanState, trackSpan } from './span-state.js';
import { finished, started, type Unfinished } from './unfinished.js';
import { weftTracer } from './tracer.js';
import { activeContext, withActiveContext } from './active-context.js';

/** What every call of one op (or one `withSpan`) shares, computed once when it is made. */
export interface CallPlan {
  readonly name: string;
  /** Kind, display name and custom attributes: the same for every call. */
  readonly attributes: Attributes;
  /** Per-op privacy overrides, applied over the process-wide settings at each call. */
  readonly content: ContentOptions | undefined;
  /**
   * The custom attributes given (a copy), and the length they were made within in `attributes`: a span whose own
   * limit is tighter has them made again (see {@link refitCustomAttributes}).
   */
  readonly custom?: { readonly record: Readonly<Record<string, unknown>>; readonly madeAt: number } | undefined;
}

/** A span weft has started for one call, with the context that makes it the parent of what runs inside. */
export interface ActiveCall extends Unfinished {
  readonly span: Span;
  readonly context: Context;
  readonly state: SpanState;
}

/** An {@link ActiveCall}'s end when the process ends first (see unfinished.ts): one function for every call. */
function endAtExit(this: ActiveCall, error: Error): void {
  fail(this, error);
}

/** The end at exit of a call whose value came but was never taken (an API promise nobody read): no output. */
function endAtExitWithoutOutput(this: ActiveCall): void {
  succeed(this, undefined);
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
    const state: SpanState = { name: plan.name, settings: fitToSpan(resolveContentOptions(plan.content), span), outputSet: false };
    if (span.isRecording()) {
      trackSpan(span, state);
      if (plan.custom && state.settings.maxAttributeLength < plan.custom.madeAt) {
        refitCustomAttributes(span, plan.custom.record, plan.attributes, state.settings.maxAttributeLength);
      }
      if (inputs && state.settings.captureInput) {
        const named = inputs();
        // A call without arguments records no `inputs`; the trace service shows `{}` for it either way.
        const value = hasKeys(named) ? inputsValue(named, state.settings, plan.name) : undefined;
        if (value !== undefined) span.setAttribute(ATTR.inputs, value);
      }
    }
    const call: ActiveCall = { span, context: trace.setSpan(parent, span), state, endUnfinished: endAtExit };
    if (span.isRecording()) started(call);
    return call;
  } catch (error) {
    reportTracingFailure('start', error);
    return undefined;
  }
}

/** Records the output (unless the code set one itself) and ends the span, unless it has ended. Never throws. */
export function succeed(call: ActiveCall, output: unknown): void {
  finished(call);
  // Ended already: at exit (see unfinished.ts), or by the app through the span itself.
  if (!isRecording(call.span)) return;
  try {
    if (!call.state.outputSet) {
      const value = outputValue(output, call.state.settings, call.state.name);
      if (value !== undefined) call.span.setAttribute(ATTR.output, value);
    }
  } catch (error) {
    reportTracingFailure('output', error);
  }
  endSafely(call.span);
}

/** Records an error (ERROR status with its message, and an `exception` event) and ends the span, unless it has ended. Never throws. */
export function fail(call: ActiveCall, error: unknown): void {
  finished(call);
  if (!isRecording(call.span)) return;
  try {
    const text = recordedErrorText(error, call.state.settings.maxAttributeLength);
    call.span.recordException({ name: error instanceof Error ? errorClassName(error) : 'non-Error thrown', ...text });
    call.span.setStatus({ code: SpanStatusCode.ERROR, message: errorStatusText(error, text.message) });
  } catch (failure) {
    reportTracingFailure('error', failure);
    // An error weft cannot read (a message getter that throws, a revoked Proxy) is still a failure.
    try {
      call.span.setStatus({ code: SpanStatusCode.ERROR, message: 'an error weft could not read' });
    } catch {
      // Nothing more to record with.
    }
  }
  endSafely(call.span);
}

function isRecording(span: Span): boolean {
  try {
    return span.isRecording();
  } catch (error) {
    reportTracingFailure('end', error);
    return false;
  }
}

function endSafely(span: Span): void {
  try {
    span.end();
  } catch (error) {
    reportTracingFailure('end', error);
  }
}

/**
 * Ends the span when `result` is settled and returns what the caller should get:
 * - a native promise is followed with `then`, and the follower returned: it settles with the same value or the
 *   same error instance, and if the app leaves it unhandled, Node reports that rejection exactly as it would
 *   without weft (a native promise's identity carries nothing, and the type is still `Promise`);
 * - a Promise subclass (such as the `openai` package's APIPromise, with `withResponse()`) is returned as the very
 *   same object and followed on a side branch that records its outcome: its work already started when it was
 *   made (a rejection it records counts as handled; see below). An APIPromise is followed to what the app makes of
 *   it, never with `then`, which would read its body (see followApiPromise);
 * - any other thenable (a lazy query builder, say) is not touched, since `then` may be what runs it: the span
 *   ends now, without an output;
 * - plain values end the span at once.
 */
export function settle<R>(call: ActiveCall, result: R): R {
  const settling = settlingOf(result);
  if (settling === 'value') {
    succeed(call, result);
    return result;
  }
  if (settling === 'other-thenable') {
    succeed(call, undefined);
    return result;
  }
  if (settling === 'native-promise') {
    return (result as Promise<unknown>).then(
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
  // The side branch records the outcome and swallows a rejection. Trade-off: following the promise marks it
  // handled, so a rejection the app never handles is no longer reported by Node. Re-throwing instead cannot be
  // made right: whether the app handled the promise is unknowable here (APIPromise's `catch`, `finally`,
  // `withResponse()` and `asResponse()` follow inner promises, never `this.then`), and a side branch that
  // re-throws would crash an app that handled its error. weft must never add an unhandled rejection, so it may
  // hide one here; for native promises, above, it hides nothing.
  let ended = false;
  const once =
    <A>(end: (argument: A) => void) =>
    (argument: A): void => {
      if (ended) return;
      ended = true;
      end(argument);
    };
  try {
    if (typeof (result as { asResponse?: unknown }).asResponse === 'function') {
      followApiPromise(
        result as unknown as ApiPromiseLike,
        once((value: unknown) => succeed(call, value)),
        once((error: unknown) => fail(call, error)),
        // Its value has come, only nobody has taken it yet: if the process ends first, the call did not fail.
        () => {
          call.endUnfinished = endAtExitWithoutOutput;
        },
      );
      return result;
    }
    (result as Promise<unknown>).then(
      once((value: unknown) => succeed(call, value)),
      once((error: unknown) => fail(call, error)),
    );
  } catch (error) {
    // A `then` that throws may still have attached the side branch: the span ends once, whichever comes first.
    reportTracingFailure('then', error);
    once(() => succeed(call, undefined))(undefined);
  }
  return result;
}

function hasKeys(record: Record<string, unknown>): boolean {
  for (const _ in record) return true;
  return false;
}

type Settling = 'value' | 'native-promise' | 'promise-subclass' | 'other-thenable';

/** How a result settles. Reading `then` may run a getter or a Proxy trap: a result that throws is a plain value. */
function settlingOf(value: unknown): Settling {
  try {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return 'value';
    if (typeof (value as { then?: unknown }).then !== 'function') return 'value';
    if (!(value instanceof Promise)) return 'other-thenable';
    return value.constructor === Promise ? 'native-promise' : 'promise-subclass';
  } catch {
    return 'value';
  }
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
  const call = startCall(plan, activeContext(), inputs);
  if (!call) return Reflect.apply(fn, thisArg, args);
  let result: R;
  try {
    result = withActiveContext(call.context, () => Reflect.apply(fn, thisArg, args));
  } catch (error) {
    fail(call, error);
    throw error;
  }
  return settle(call, result);
}
