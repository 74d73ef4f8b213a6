import {
  type WeftApiError,
  WeftConnectionError,
  WeftError,
  WeftParseError,
  createApiError,
} from '../../core/errors.js';
import { parseServerSentEvents } from '../../core/sse.js';
import type { ChatCompletionChunk } from './types.js';

/** The `code` of the error thrown when a chat stream ends before `data: [DONE]`. */
export const STREAM_INCOMPLETE = 'WEFT_STREAM_INCOMPLETE';

/** Where a stream came from, for error messages. */
export interface StreamOrigin {
  method: string;
  path: string;
  requestId: string | undefined;
}

/**
 * Reads the chunks of a streamed chat completion from the body's bytes: one JSON chunk per `data:` event,
 * comments and keep-alives skipped, and the end at `data: [DONE]`, after the final usage chunk.
 *
 * Everything that goes wrong is a weft error naming the request: a `data: {"error": …}` event becomes the
 * {@link WeftApiError} of its code (a 500-class error when it has none); a connection that breaks, or a body
 * that ends without `[DONE]`, becomes a {@link WeftConnectionError} that says how many chunks arrived, since
 * the caller holds a partial answer.
 */
export async function* readChatChunks(
  bytes: AsyncIterable<Uint8Array>,
  origin: StreamOrigin,
): AsyncGenerator<ChatCompletionChunk, void, undefined> {
  const { method, path } = origin;
  let received = 0;
  try {
    for await (const event of parseServerSentEvents(bytes)) {
      const data = event.data.trim();
      if (data === '') continue;
      if (data === '[DONE]') return;
      const parsed = parseEventData(data, origin, received);
      if (isErrorEvent(parsed)) throw streamErrorEvent(parsed, origin);
      received += 1;
      yield parsed as ChatCompletionChunk;
    }
  } catch (error) {
    // A cut connection arrives as the core's plain connection error; say what it means for this response.
    if (error instanceof WeftConnectionError && error.name === 'WeftConnectionError') {
      throw new WeftConnectionError(
        `weft: ${method} ${path}: the stream broke after ${received} chunk(s), before [DONE]; the response is incomplete (${error.message}).`,
        method,
        path,
        { cause: error, ...(error.code ? { code: error.code } : {}) },
      );
    }
    if (error instanceof WeftError) throw error;
    throw new WeftParseError(`weft: ${method} ${path}: the event stream could not be read: ${describe(error)}`, method, path, {
      cause: error,
    });
  }
  throw new WeftConnectionError(
    `weft: ${method} ${path}: the stream ended after ${received} chunk(s) without [DONE]; the response is incomplete.`,
    method,
    path,
    { code: STREAM_INCOMPLETE },
  );
}

function parseEventData(data: string, origin: StreamOrigin, received: number): unknown {
  try {
    return JSON.parse(data);
  } catch (error) {
    throw new WeftParseError(
      `weft: ${origin.method} ${origin.path}: event ${received + 1} of the stream is not JSON.`,
      origin.method,
      origin.path,
      { cause: error },
    );
  }
}

function isErrorEvent(value: unknown): value is { error: unknown } {
  return typeof value === 'object' && value !== null && 'error' in value && (value as { error: unknown }).error != null;
}

/** vLLM puts the HTTP status it would have sent in `error.code`; other servers may not, so 500 stands in. */
function streamErrorEvent(body: { error: unknown }, origin: StreamOrigin): WeftApiError {
  const error = body.error as { code?: unknown; status?: unknown } | string;
  const candidates = typeof error === 'object' ? [error.code, error.status] : [];
  const status = candidates.map(Number).find((n) => Number.isInteger(n) && n >= 400 && n <= 599) ?? 500;
  return createApiError({
    status,
    method: origin.method,
    path: origin.path,
    body,
    requestId: origin.requestId,
    retryAfterMs: undefined,
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
