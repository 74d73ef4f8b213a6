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
  /**
   * The reader is leaving: if every choice has finished and only the usage chunk the request asked for is still to
   * come (the server sends it next), how to stop the request of `stream` should it not come; else undefined.
   */
  usageStillToCome(signal: AbortSignal | undefined, stream: object | undefined): (() => void) | undefined;
  /**
   * Whether this iterator is the one that reports: the first to be read. An app may take several iterators of one
   * stream (openai 4 to 6 make a new one each time) and read a later one first; the others are passed through.
   */
  claimChunks(): boolean;
}

/**
 * How long the usage chunk may take, once the reader has left after the last choice finished, before weft stops the
 * request without it. The server sends it right after that choice's last chunk; this bounds only a server that holds
 * the stream open without it, and nobody waits on it: the reader has already left.
 */
const USAGE_WAIT_MS = 1000;

/**
 * An iterator over `source` that reports to `call`. One `then` per chunk, no generator, so no added latency; a
 * class, whose methods and fields cost nothing to set up on the way to the first chunk. It keeps `owner` (the
 * stream it was taken from) reachable: a stream is watched for abandonment by garbage collection, and an app that
 * holds only the iterator, as `for await` does, is still reading the stream.
 */
export function observedIterator<C>(
  source: AsyncIterator<C>,
  call: ChunkObserver,
  signal: AbortSignal | undefined,
  owner?: object,
): AsyncIterableIterator<C> {
  return new ObservedIterator(source, call, signal, owner);
}

class ObservedIterator<C> implements AsyncIterableIterator<C> {
  #finished = false;
  /** Whether this iterator reports to the call (see ChunkObserver.claimChunks): undefined until it is first used. */
  #reports: boolean | undefined;
  readonly #source: AsyncIterator<C>;
  readonly #call: ChunkObserver;
  readonly #signal: AbortSignal | undefined;
  /** The stream the iterator was taken from: holding it is the point (see above). */
  readonly #owner: object | undefined;
  readonly #onResult = (result: IteratorResult<C>): IteratorResult<C> | Promise<IteratorResult<C>> => {
    if (this.#finished) return result;
    if (result.done) {
      this.#finished = true;
      this.#call.finishStream(this.#signal);
      return result;
    }
    const shown = this.#call.onChunk(result.value);
    if (shown === HIDE_CHUNK) return this.#source.next().then(this.#onResult, this.#onError);
    // In the order the SDK gives them, for an app that prints or compares the result.
    return shown === result.value ? result : { value: shown as C, done: false };
  };
  readonly #onError = (error: unknown): never => {
    throw this.#failed(error);
  };

  constructor(source: AsyncIterator<C>, call: ChunkObserver, signal: AbortSignal | undefined, owner: object | undefined) {
    this.#source = source;
    this.#call = call;
    this.#signal = signal;
    this.#owner = owner;
  }

  next(...args: [] | [undefined]): Promise<IteratorResult<C>> {
    if (!this.#reporting()) return this.#source.next(...args);
    try {
      return this.#source.next(...args).then(this.#onResult, this.#onError);
    } catch (error) {
      return Promise.reject(this.#failed(error));
    }
  }

  return(value?: unknown): Promise<IteratorResult<C>> {
    if (!this.#reporting()) return returnOf(this.#source, value);
    if (!this.#finished) {
      this.#finished = true;
      // A reader that leaves at the last choice (openai's stream helper throws there at finish_reason "length") has
      // not read the usage chunk, which is on its way: weft reads on for it, unseen, and returns the source after.
      const stop = this.#call.usageStillToCome(this.#signal, this.#owner);
      if (stop) {
        const source = this.#source;
        readOnForUsage(source, this.#call, stop)
          .then(() => returnOf(source, value))
          .catch(() => undefined);
        return Promise.resolve({ done: true, value } as IteratorResult<C>);
      }
      // Before the source's own return(), which aborts the request itself: only an abort by the app counts.
      this.#call.finishStream(this.#signal);
    }
    return returnOf(this.#source, value);
  }

  throw(error?: unknown): Promise<IteratorResult<C>> {
    if (!this.#reporting()) {
      return typeof this.#source.throw === 'function' ? this.#source.throw(error) : Promise.reject(error);
    }
    if (typeof this.#source.throw !== 'function') return Promise.reject(this.#failed(error));
    try {
      return this.#source.throw(error).then(this.#onResult, this.#onError);
    } catch (thrown) {
      return Promise.reject(this.#failed(thrown));
    }
  }

  /** Whether this iterator reports to the call: decided as it is first used (see ChunkObserver.claimChunks). */
  #reporting(): boolean {
    this.#reports ??= this.#call.claimChunks();
    return this.#reports;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  #failed(error: unknown): unknown {
    if (!this.#finished) {
      this.#finished = true;
      this.#call.fail(error);
    }
    return error;
  }
}

function returnOf<C>(source: AsyncIterator<C>, value: unknown): Promise<IteratorResult<C>> {
  return typeof source.return === 'function' ? source.return(value) : Promise.resolve({ done: true, value } as IteratorResult<C>);
}

/**
 * Reads `source` on to the usage chunk (or its end), records what comes, and ends the span as left by its reader.
 * `stop` ends the request if the usage takes longer than {@link USAGE_WAIT_MS}. Never rejects.
 */
async function readOnForUsage(source: AsyncIterator<unknown>, call: ChunkObserver, stop: () => void): Promise<void> {
  const deadline = setTimeout(stop, USAGE_WAIT_MS);
  // Nothing waits on it: it must not keep the process alive by itself.
  deadline.unref();
  try {
    for (let result = await source.next(); !result.done; result = await source.next()) {
      call.onChunk(result.value);
      if ((result.value as { usage?: unknown } | null)?.usage) break;
    }
  } catch {
    // Stopped, or cut: the span ends with what came.
  } finally {
    clearTimeout(deadline);
    // The reader left before anything was aborted: whatever stopped the request since, the span ends as left.
    call.finishStream(undefined);
  }
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
