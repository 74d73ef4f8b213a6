import { type ChatCall, type ChatResultSettler, reportInternalError } from '../chat/index.js';
import { settleApiPromise } from './api-promise.js';
import type { AdoptedMethod, Method, PatchHost } from './patch-completions.js';

/**
 * openai's streaming helpers (`chat.completions.stream()`, and `runTools()` with `stream: true`; in openai 4
 * `beta.chat.completions.stream()`, `.runTools()` and `.runFunctions()`) read the stream of
 * each `create()` they make for the app, and abort it with their own controller when the app stops reading them:
 * `break` out of `for await (const chunk of runner)` (or a cancelled `runner.toReadableStream()`) calls the helper's
 * `abort()`, exactly as the app's own `runner.abort()` does. weft tells the two apart by watching the helper's
 * iterator: its `return()` means the app left, and ends the span of the call under way with what was received, as
 * a `break` out of a stream of `create()` does, before the helper's abort could fail it. An abort by the app never
 * goes through `return()` and stays an error.
 */

/** A runner as weft reads it: its AbortController, whose signal it gives each `create()`, and its chunk iterator. */
interface RunnerShape {
  controller?: { signal?: unknown } | null;
  [Symbol.asyncIterator]?: unknown;
}

/** The call a helper's `create()` is making, known by the signal the helper gives it. */
interface HelperReader {
  call: ChatCall | undefined;
}

const readers = new WeakMap<object, HelperReader>();

/**
 * Wraps `Completions.prototype.stream` (or `.runTools`) so that the app leaving the runner's loop ends the span of the
 * call under way as left, not as aborted. The runner the app gets is openai's own; only its iterator's `return()` is
 * wrapped, in place.
 */
export function tracedHelperMethod(
  currentHost: () => PatchHost | undefined,
  replaced: Pick<AdoptedMethod, 'original'>,
): Method {
  return function weftTracedHelper(this: unknown, ...args: unknown[]): unknown {
    const runner = replaced.original.apply(this, args);
    try {
      if (currentHost()) watchReaderLeaving(runner as RunnerShape);
    } catch (error) {
      reportInternalError('openai stream helper', error);
    }
    return runner;
  };
}

/**
 * The settler of a `create()` that a helper makes, known by the `signal` in its request options (the helper's own
 * controller's): it keeps the call, for the helper's iterator to end if the app leaves. Undefined for any other call.
 */
export function helperSettler(requestOptions: unknown): ChatResultSettler<unknown> | undefined {
  if (!requestOptions || typeof requestOptions !== 'object') return undefined;
  const signal = (requestOptions as { signal?: unknown }).signal;
  const reader = signal && typeof signal === 'object' ? readers.get(signal) : undefined;
  if (!reader) return undefined;
  return (result, call) => {
    // A runTools() runner makes one call per turn, one after the other: the latest is the one under way.
    reader.call = call;
    return settleApiPromise(result, call);
  };
}

function watchReaderLeaving(runner: RunnerShape | null | undefined): void {
  const signal = runner?.controller?.signal;
  const iterate = runner?.[Symbol.asyncIterator];
  // The non-streaming runTools() runner has no chunk iterator: nothing for the app to leave.
  if (!runner || !signal || typeof signal !== 'object' || typeof iterate !== 'function') return;
  const reader: HelperReader = { call: undefined };
  readers.set(signal, reader);
  const observed = function (this: unknown, ...args: unknown[]) {
    const iterator = (iterate as Method).apply(this, args) as { return?: unknown } | null | undefined;
    const leave = iterator?.return;
    if (iterator && typeof leave === 'function') {
      // Before the helper's own return(), which aborts the request.
      iterator.return = function weftReturn(this: unknown, ...returnArgs: unknown[]) {
        reader.call?.readerLeft();
        return (leave as Method).apply(this, returnArgs);
      };
    }
    return iterator;
  };
  // Named as the method it stands for, in case the app (or an op recording the runner as its output) looks.
  Object.defineProperty(observed, 'name', { value: (iterate as Method).name });
  Object.defineProperty(runner, Symbol.asyncIterator, { configurable: true, writable: true, value: observed });
}
