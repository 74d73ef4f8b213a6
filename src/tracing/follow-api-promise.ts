/**
 * Given to `asResponse()` when weft follows an APIPromise only to learn when its response arrives. weft's own hook on
 * a traced chat call's promise (see the openai instrumentation's api-promise.ts) takes a bare `asResponse()` to mean
 * that the app reads the raw body itself; this tells it that nobody does. openai's `asResponse()` takes no argument.
 * A registered symbol, so that two copies of weft in one process understand each other.
 */
export const FOLLOWING_ONLY: unique symbol = Symbol.for('weft.asResponse.followingOnly');

/** The part of the `openai` package's APIPromise that weft reads. */
export interface ApiPromiseLike {
  asResponse(marker?: typeof FOLLOWING_ONLY): Promise<unknown>;
  /** Starts parsing the body, once; `then`, `catch`, `finally` and `withResponse()` go through it. */
  parse?(): Promise<unknown>;
  /** Set by the SDK once something parses the body. */
  parsedPromise?: Promise<unknown>;
}

// The end of a promise nobody took: holds the callback (which holds the span, never the promise).
const neverTaken = new FinalizationRegistry<(value: undefined) => void>((end) => end(undefined));

/**
 * Follows an APIPromise to what the app makes of it, without reading its body: its `then` parses the body, which
 * would leave an app that takes the raw response with `asResponse()` a body already used. `succeed` gets
 * - the parsed value, when the app parses it (`await`, `then`, `parse()`, `withResponse()`), whenever it does,
 *   even after the response arrived;
 * - nothing, once the response arrived, when the app takes the raw response (`asResponse()`), or, failing both,
 *   when the promise is garbage-collected untaken.
 * `fail` gets the request's error, or the parse's. Either may be called more than once: the caller keeps the first.
 * `arrivedUntaken` hears when the response arrived and nothing had taken it yet.
 */
export function followApiPromise(
  promise: ApiPromiseLike,
  succeed: (value: unknown) => void,
  fail: (error: unknown) => void,
  arrivedUntaken: () => void,
): void {
  if (promise.parsedPromise) {
    promise.parsedPromise.then(succeed, fail);
    return;
  }
  const { asResponse, parse } = promise;
  let parsing = false;
  let rawTaken = false;
  let arrived = false;
  const untaken = {};
  // A promise that cannot be changed (frozen) is followed as far as its response: then parsed or not at all.
  const hooked =
    typeof parse === 'function' &&
    hookMethod(promise, 'parse', parse, (parsed) => {
      if (parsing) return;
      parsing = true;
      neverTaken.unregister(untaken);
      parsed.then(succeed, fail);
    }) &&
    hookMethod(promise, 'asResponse', asResponse, (response, args) => {
      if (args[0] === FOLLOWING_ONLY || rawTaken) return;
      rawTaken = true;
      neverTaken.unregister(untaken);
      if (arrived) response.then(() => succeed(undefined), fail);
    });
  asResponse.call(promise, FOLLOWING_ONLY).then(() => {
    arrived = true;
    if (parsing) return;
    if (promise.parsedPromise) promise.parsedPromise.then(succeed, fail);
    else if (rawTaken || !hooked) succeed(undefined);
    else {
      neverTaken.register(promise, succeed, untaken);
      arrivedUntaken();
    }
  }, fail);
}

/** Replaces `promise[name]` on the promise alone by a method that calls `method` and shows `seen` what it returned. */
function hookMethod(
  promise: ApiPromiseLike,
  name: 'parse' | 'asResponse',
  method: (...args: never[]) => Promise<unknown>,
  seen: (result: Promise<unknown>, args: unknown[]) => void,
): boolean {
  try {
    Object.defineProperty(promise, name, {
      configurable: true,
      writable: true,
      value: function followed(this: unknown, ...args: unknown[]) {
        const result = (method as (...a: unknown[]) => Promise<unknown>).apply(this, args);
        seen(result, args);
        return result;
      },
    });
    return true;
  } catch {
    return false;
  }
}
