/**
 * A streamed response: an async iterable that sends its request when iteration starts, reads the body as
 * it is consumed, and ends the request (closing the connection) when the consumer stops early. It can be
 * iterated once.
 *
 * @example
 * for await (const call of client.trace.calls.streamQuery({ limit: 10 })) console.log(call.id);
 * const all = await client.trace.calls.streamQuery({ limit: 10 }).collect();
 */
export class ResponseStream<T> implements AsyncIterable<T> {
  private consumed = false;

  /** @param start opens the request and yields items; its `finally` must release the response body. */
  constructor(private readonly start: () => AsyncGenerator<T>) {}

  [Symbol.asyncIterator](): AsyncGenerator<T> {
    if (this.consumed) {
      throw new TypeError('weft: this response stream was already iterated; call the method again for a new request.');
    }
    this.consumed = true;
    return this.start();
  }

  /** Reads the whole stream into an array. */
  async collect(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
