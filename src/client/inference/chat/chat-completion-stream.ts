import type { ChatCompletionStreamChunk } from './types.js';

/**
 * The chunks of a streamed chat completion, read as they arrive. Iterate it once with `for await`; leaving the
 * loop early closes the connection. The last chunk before the end is usually the usage chunk (`choices: []`).
 *
 * @example
 * const stream = await client.inference.chat.completions.create({ model, messages, stream: true });
 * for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta.content ?? '');
 */
export class ChatCompletionStream implements AsyncIterable<ChatCompletionStreamChunk> {
  private iterated = false;

  /**
   * @param chunks the parsed chunks; finishing or returning it releases the response body.
   * @param release releases the response body when the chunks are never read.
   * @param requestId the `x-request-id` of the response, to quote when reporting a problem.
   */
  constructor(
    private readonly chunks: AsyncGenerator<ChatCompletionStreamChunk, void, undefined>,
    private readonly release: () => void,
    readonly requestId: string | undefined,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<ChatCompletionStreamChunk> {
    if (this.iterated) {
      throw new TypeError('weft: a chat completion stream can be iterated once; call create() again for a new one.');
    }
    this.iterated = true;
    return this.chunks;
  }

  /** Reads every chunk into an array. */
  async collect(): Promise<ChatCompletionStreamChunk[]> {
    const all: ChatCompletionStreamChunk[] = [];
    for await (const chunk of this) all.push(chunk);
    return all;
  }

  /**
   * Stops reading and closes the connection, for a stream that will not be iterated (to the end). A stream dropped
   * without it is released too, but only once it is garbage-collected.
   */
  async cancel(): Promise<void> {
    // Going through the iterator (when not taken yet) lets tracing see the end; a generator that never
    // started skips its `finally` on return(), so the body is released directly too.
    const iterator = this.iterated ? this.chunks : this[Symbol.asyncIterator]();
    this.release();
    await iterator.return?.(undefined);
  }
}
