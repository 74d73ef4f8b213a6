import { type ChatCall, settleChatResult } from '../chat/index.js';
import { reportOnce } from '../../diagnostics.js';
import { FOLLOWING_ONLY } from '../../tracing/follow-api-promise.js';
import { isThenable } from '../../tracing/is-thenable.js';

/**
 * The parts of openai's `APIPromise` (4.x–7.x) weft hooks. It is a lazy promise: the response arrives on
 * `responsePromise`, and `then`/`parse`/`withResponse` run `parseResponse` on it; `asResponse` skips parsing.
 */
interface APIPromiseShape {
  responsePromise: Promise<unknown>;
  parseResponse: (...args: unknown[]) => unknown;
  parsedPromise?: unknown;
  asResponse: () => Promise<unknown>;
  /** openai 7: the promise's own function (see watchDerivedPromises). */
  _thenUnwrap?: unknown;
}

/**
 * Settles a chat call from openai's own `APIPromise`, changing nothing the app can see: the same promise object
 * is returned, its lazy parsing stays lazy, and `.withResponse()`, `.asResponse()` and `.parse()` work as
 * before. The promise is hooked in place: errors are read on `responsePromise`, the parsed value in
 * `parseResponse`, and a `Stream` is observed by wrapping its `iterator` in place, so it stays the SDK's
 * `Stream` (`for await`, `tee()`, `toReadableStream()`, `controller.abort()`).
 *
 * `received` gives the completion a `parse()` received before parsing its content (see {@link keepUnwrapped}): a
 * parse that fails (an answer cut at `max_tokens`, JSON the schema refuses) still records the output and usage of
 * the call the app paid for.
 *
 * Anything else (another instrumentation of openai, patched before weft, returned a type of its own) is settled as
 * any chat result is, see {@link settleForeignResult}.
 */
export function settleApiPromise<T>(result: T, call: ChatCall, received?: () => unknown): T {
  const promise = result as unknown as APIPromiseShape;
  if (!isAPIPromise(promise)) return settleForeignResult(result, call);
  watchFailure(promise, call);
  watchParse(promise, call, received);
  watchRawResponse(promise, call);
  watchDerivedPromises(promise, call);
  return result;
}

/**
 * Fails the span with the request's error, which reaches the promise's readers unchanged: `responsePromise`, which
 * openai's `parse()` and `asResponse()` read, becomes a promise that fails the span first and rejects with the same
 * error. Whoever read the request reads it instead, so it is left unhandled only where the request would have been
 * (nobody read the promise); a promise derived past it in openai 7 reads it too (see watchDerivedPromises). A promise
 * already parsed (by an instrumentation inside weft, before it returned it) has its readers on the parse: weft watches
 * the error on a branch of its own, which never rejects.
 */
function watchFailure(promise: APIPromiseShape, call: ChatCall): void {
  if (promise.parsedPromise !== undefined) {
    promise.responsePromise.then(undefined, (error: unknown) => call.fail(error));
    return;
  }
  // A data property, as openai's: an accessor here would turn every APIPromise of openai 7 into a slow dictionary-mode
  // object, for openai's own reads of it too.
  promise.responsePromise = promise.responsePromise.then(undefined, (error: unknown) => {
    call.fail(error);
    throw error;
  });
}

/**
 * Settles the call with the parsed value (see ChatCall.settle), unless `settles` is false (the value of a derived
 * promise was settled before), and fails it with the parse's error.
 */
function watchParse(promise: APIPromiseShape, call: ChatCall, received?: () => unknown, settles = true): void {
  const parseResponse = promise.parseResponse;
  promise.parseResponse = function weftParseResponse(this: unknown, ...args: unknown[]) {
    let parsed: unknown;
    try {
      parsed = parseResponse.apply(this, args);
    } catch (error) {
      call.fail(error, received?.());
      throw error;
    }
    return Promise.resolve(parsed).then(settles ? (value) => call.settle(value) : undefined, (error: unknown) => {
      call.fail(error, received?.());
      throw error;
    });
  };
}

/**
 * `.asResponse()` alone never parses, so the span ends with the response, without the body weft cannot read; and
 * since weft cannot hide from a raw body the usage it would have asked for, it asks for none.
 */
function watchRawResponse(promise: APIPromiseShape, call: ChatCall): void {
  const asResponse = promise.asResponse;
  Object.defineProperty(promise, 'asResponse', {
    configurable: true,
    writable: true,
    value: function weftAsResponse(this: APIPromiseShape, ...args: unknown[]) {
      // op() and withSpan() follow a promise an op returns through asResponse() too, reading nothing (FOLLOWING_ONLY).
      const following = args[0] === FOLLOWING_ONLY;
      const readsBody = !following && this.parsedPromise === undefined;
      // The app reads the raw body itself: the request must go out as the app wrote it (see withdrawUsageRequest).
      if (readsBody) call.withdrawUsageRequest();
      const response = (asResponse as (...a: unknown[]) => Promise<unknown>).apply(this, following ? [] : args);
      if (readsBody) response.then(() => call.end(), () => undefined);
      // What op() follows may never be read (an app that drops what the op returned): the span must still end.
      else if (following) {
        response.then(() => {
          if (this.parsedPromise === undefined) call.awaitReader(this);
        }, () => undefined);
      }
      return response;
    },
  });
}

/**
 * openai 7 gives each promise its own `_thenUnwrap`, which derives a promise from the request and openai's parser
 * directly, past the hooks above: another instrumentation outside weft that returns such a promise instead (arize's,
 * traceloop's) would leave the span open, and the usage chunk weft asked for shown. The derived promise's transform
 * gets the value settled first, and the derived promise is watched as the one weft hooked is: the request's error
 * (through the same `responsePromise`), its parse's, its raw response. In openai 4 to 6 `_thenUnwrap` is the class's,
 * and reads the hooked `responsePromise` and `parseResponse`.
 */
function watchDerivedPromises(promise: APIPromiseShape, call: ChatCall): void {
  const thenUnwrap = Object.hasOwn(promise, '_thenUnwrap') ? promise._thenUnwrap : undefined;
  if (typeof thenUnwrap !== 'function') return;
  type Transform = (value: unknown, ...rest: unknown[]) => unknown;
  promise._thenUnwrap = function weftThenUnwrap(this: unknown, transform: Transform) {
    const derived = thenUnwrap.call(this, ((value, ...rest) => transform(call.settle(value), ...rest)) as Transform);
    if (isAPIPromise(derived as APIPromiseShape)) {
      // It reads the request itself: given the promise that fails the span instead, so that the request's error is
      // read, and the span failed, once, whoever reads it.
      (derived as APIPromiseShape).responsePromise = promise.responsePromise;
      watchParse(derived as APIPromiseShape, call, undefined, false);
      watchRawResponse(derived as APIPromiseShape, call);
      watchDerivedPromises(derived as APIPromiseShape, call);
    }
    return derived;
  };
}

/**
 * A result that is not openai's `APIPromise`: another instrumentation, patched before weft, returned its own
 * (traceloop an async generator of the chunks, arize a plain promise on an `openai` other than its own). weft settles
 * it as any chat result (a promise followed, a stream observed in place), and takes back the usage request it added:
 * it could not hide the usage chunk in every way of reading a type it does not know, and the app must not see it.
 */
function settleForeignResult<T>(result: T, call: ChatCall): T {
  call.withdrawUsageRequest();
  // A promise is followed through a new one, of the same type only if it is a plain promise.
  if (isThenable(result) && Object.getPrototypeOf(result) !== Promise.prototype) {
    reportOnce(
      'openai:api-promise-shape',
      'openai returned an unexpected promise type; chat spans from it have no response data.',
    );
    call.end();
    return result;
  }
  return settleChatResult(result, call);
}

/**
 * Keeps the value `promise` resolves to as a promise derived from it with `_thenUnwrap(transform)` transforms it:
 * how openai's `parse()` (5.x–7.x) turns `create`'s completion into a parsed one. `_thenUnwrap` is wrapped on this
 * promise alone (a method of the class in 5.x and 6.x, its own function in 7.x). Returns what was kept so far.
 */
export function keepUnwrapped(promise: unknown): () => unknown {
  let kept: unknown;
  const target = promise as { _thenUnwrap?: unknown } | null;
  const thenUnwrap = target?._thenUnwrap;
  if (target && typeof thenUnwrap === 'function') {
    target._thenUnwrap = function weftThenUnwrap(this: unknown, transform: (value: unknown, ...rest: unknown[]) => unknown) {
      return thenUnwrap.call(this, (value: unknown, ...rest: unknown[]) => {
        kept = value;
        return transform(value, ...rest);
      });
    };
  }
  return () => kept;
}

function isAPIPromise(value: APIPromiseShape): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof value.parseResponse === 'function' &&
    typeof value.asResponse === 'function' &&
    typeof (value.responsePromise as { then?: unknown } | undefined)?.then === 'function'
  );
}

