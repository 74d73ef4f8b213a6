import type { ChatCall } from '../chat/index.js';
import { reportOnce } from '../../diagnostics.js';
import { FOLLOWING_ONLY } from '../../tracing/follow-api-promise.js';

/**
 * The parts of openai's `APIPromise` (4.x–7.x) weft hooks. It is a lazy promise: the response arrives on
 * `responsePromise`, and `then`/`parse`/`withResponse` run `parseResponse` on it; `asResponse` skips parsing.
 */
interface APIPromiseShape {
  responsePromise: Promise<unknown>;
  parseResponse: (...args: unknown[]) => unknown;
  parsedPromise?: unknown;
  asResponse: () => Promise<unknown>;
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
 */
export function settleApiPromise<T>(result: T, call: ChatCall, received?: () => unknown): T {
  const promise = result as unknown as APIPromiseShape;
  if (!isAPIPromise(promise)) {
    reportOnce('openai:api-promise-shape', 'openai returned an unexpected promise type; chat spans from it have no response data.');
    call.end();
    return result;
  }

  // A new promise that fails the span and rejects with the same error; nobody awaiting it stays an unhandled rejection.
  promise.responsePromise = promise.responsePromise.then(undefined, (error: unknown) => {
    call.fail(error);
    throw error;
  });

  const parseResponse = promise.parseResponse;
  promise.parseResponse = function weftParseResponse(this: unknown, ...args: unknown[]) {
    let parsed: unknown;
    try {
      parsed = parseResponse.apply(this, args);
    } catch (error) {
      call.fail(error, received?.());
      throw error;
    }
    return Promise.resolve(parsed).then(
      (value) => call.settle(value),
      (error: unknown) => {
        call.fail(error, received?.());
        throw error;
      },
    );
  };

  // `.asResponse()` alone never parses, so the span ends with the response, without the body weft cannot read; and
  // since weft cannot hide from a raw body the usage it would have asked for, it asks for none.
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
  return result;
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

