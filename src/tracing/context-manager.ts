import { channel } from 'node:diagnostics_channel';
import { type Context, ROOT_CONTEXT } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { isTracingSuppressed } from '@opentelemetry/core';
import { isThenable } from './is-thenable.js';

// Where an HTTP instrumentation learns of a request as it starts (fetch's undici, and node:http), with whatever
// context is active by then: once somebody listens there, a span's context must reach the request.
const requestChannels = [channel('undici:request:create'), channel('http.client.request.start')];

/**
 * OTel's `AsyncLocalStorage` context manager, switched on only once a context has to reach async code.
 *
 * On Node 20 and 22, the first `AsyncLocalStorage.run()` in a process installs async hooks that then run on every
 * promise the process makes, whoever makes it: about a fifth of a plain chat call's tracing cost, and half of a
 * streamed one's (`npm run bench:instructions`). So until some code enters a context that carries something (an
 * op(), a thread, a server span), or an HTTP instrumentation listens for requests, no context is entered through
 * `AsyncLocalStorage`:
 * - entering the root context, or one that only suppresses tracing (what OTel's span processors do around an
 *   export), holds for the synchronous part of the call: that is where an HTTP instrumentation decides whether to
 *   trace a request, and weft's exporter enters it around each request it makes, retries included. Tracing
 *   suppressed around code that awaits (an app hiding some of its own calls) must hold after the await too: an
 *   async function entered so, or a function that returns a promise, switches the stock manager on (for that
 *   promise's continuations it comes too late, once);
 * - the chat instrumentation makes its span active the same way ({@link WeftContextManager.withSynchronously}):
 *   code that starts a span inside the SDK's call sees it; the request itself, sent later, has nobody to read it.
 * From the first context that carries something on, it is the stock manager.
 */
export class WeftContextManager extends AsyncLocalStorageContextManager {
  #entered = false;
  /** The context entered for the synchronous part of a call while no context is in use. */
  #synchronous: Context | undefined;

  /** Whether contexts reach async code: one has been entered for real, or an HTTP instrumentation is listening. */
  get inUse(): boolean {
    if (this.#entered) return true;
    for (const requests of requestChannels) if (requests.hasSubscribers) return true;
    return false;
  }

  override active(): Context {
    return this.#synchronous ?? super.active();
  }

  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const synchronousWillDo = carriesNothingAsync(context, fn);
    const result = this.enter(context, synchronousWillDo, fn, thisArg, args);
    // The suppression was wanted in async code after all: from now on, contexts reach it.
    if (synchronousWillDo && context !== ROOT_CONTEXT && isThenable(result)) this.#entered = true;
    return result;
  }

  /**
   * Runs `fn` with `context` active: for its synchronous part alone while no context is in use, which leaves
   * Node's async hooks off; as {@link WeftContextManager.with} does once contexts are in use.
   */
  withSynchronously<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.enter(context, true, fn, thisArg, args);
  }

  /** `attach()` (experimental in OTel) enters through `AsyncLocalStorage` at once. */
  override attach(context: Context): ReturnType<AsyncLocalStorageContextManager['attach']> {
    this.#entered = true;
    return super.attach(context);
  }

  override disable(): this {
    this.#entered = false;
    this.#synchronous = undefined;
    return super.disable();
  }

  private enter<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    synchronousWillDo: boolean,
    fn: F,
    thisArg: ThisParameterType<F> | undefined,
    args: A,
  ): ReturnType<F> {
    const outer = this.#synchronous;
    const synchronous = synchronousWillDo && !this.inUse;
    if (!synchronous) this.#entered = true;
    // A context entered for real inside a synchronous one replaces it, there and in its async continuations.
    this.#synchronous = synchronous ? context : undefined;
    try {
      return synchronous ? fn.apply(thisArg, args) : super.with(context, fn, thisArg, ...args);
    } finally {
      this.#synchronous = outer;
    }
  }
}

/**
 * The root context, or one whose only value is the suppression of tracing, entered around a function that is not
 * async (OTel's exporters and span processors enter it around plain closures that send a request). The API's
 * contexts keep their values in a Map; should that change, every context counts as carrying something: slower,
 * never wrong.
 */
function carriesNothingAsync(context: Context, fn: unknown): boolean {
  if (context === ROOT_CONTEXT) return true;
  const values = (context as { _currentContext?: unknown })._currentContext;
  return values instanceof Map && values.size === 1 && isTracingSuppressed(context) && !isAsyncFunction(fn);
}

function isAsyncFunction(fn: unknown): boolean {
  return Object.prototype.toString.call(fn) === '[object AsyncFunction]';
}
