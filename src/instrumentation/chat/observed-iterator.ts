/** What {@link ChunkObserver.onChunk} returns for a chunk the caller must not see. */
export const HIDE_CHUNK: unique symbol = Symbol('weft.hideChunk');

/** What an observed stream reports to: its chat call. */
export interface ChunkObserver {
  /** Records a chunk; returns what the caller gets: the chunk itself, a copy of it, or {@link HIDE_CHUNK}. */
  onChunk(chunk: unknown): unknown;
  /** The stream ended (completed, or left early); aborted when `signal` is. */
  finishStream(signal: AbortSignal | undefined): void;
  /** The stream failed with `error`. */
  fail(error: unknown): void;
}

// The iterator's reference to the stream it reads, under a key of its own so nothing else sees it.
const OWNER = Symbol('weft.observedStream');

/**
 * An iterator over `source` that reports to `call`. One `then` per chunk, no generator, so no added latency.
 * It keeps `owner` (the stream it was taken from) reachable: a stream is watched for abandonment by garbage
 * collection, and an app that holds only the iterator, as `for await` does, is still reading the stream.
 */
export function observedIterator<C>(
  source: AsyncIterator<C>,
  call: ChunkObserver,
  signal: AbortSignal | undefined,
  owner?: object,
): AsyncIterableIterator<C> {
  let finished = false;
  const onResult = (result: IteratorResult<C>): IteratorResult<C> | Promise<IteratorResult<C>> => {
    if (finished) return result;
    if (result.done) {
      finished = true;
      call.finishStream(signal);
      return result;
    }
    const shown = call.onChunk(result.value);
    if (shown === HIDE_CHUNK) return source.next().then(onResult, onError);
    return shown === result.value ? result : { done: false, value: shown as C };
  };
  const failed = (error: unknown): unknown => {
    if (!finished) {
      finished = true;
      call.fail(error);
    }
    return error;
  };
  const onError = (error: unknown): never => {
    throw failed(error);
  };
  const iterator: AsyncIterableIterator<C> = {
    next(...args: [] | [undefined]) {
      try {
        return source.next(...args).then(onResult, onError);
      } catch (error) {
        return Promise.reject(failed(error));
      }
    },
    return(value?: unknown) {
      if (!finished) {
        finished = true;
        // Before the source's own return(), which aborts the request itself: only an abort by the app counts.
        call.finishStream(signal);
      }
      return typeof source.return === 'function'
        ? source.return(value)
        : Promise.resolve({ done: true, value } as IteratorResult<C>);
    },
    throw(error?: unknown) {
      if (typeof source.throw !== 'function') return Promise.reject(failed(error));
      try {
        return source.throw(error).then(onResult, onError);
      } catch (thrown) {
        return Promise.reject(failed(thrown));
      }
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  if (owner) Object.defineProperty(iterator, OWNER, { value: owner });
  return iterator;
}

/** `source` as an async iterable iterator, unobserved. */
export function passThrough<C>(source: AsyncIterator<C>): AsyncIterableIterator<C> {
  if (typeof (source as Partial<AsyncIterableIterator<C>>)[Symbol.asyncIterator] === 'function') {
    return source as AsyncIterableIterator<C>;
  }
  return {
    next: (...args: [] | [undefined]) => source.next(...args),
    return: (value?: unknown) =>
      typeof source.return === 'function' ? source.return(value) : Promise.resolve({ done: true, value } as IteratorResult<C>),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
