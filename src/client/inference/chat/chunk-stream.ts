import {
  type ApiErrorInit,
  type WeftApiError,
  WeftConnectionError,
  WeftError,
  WeftParseError,
  WeftTimeoutError,
} from '../../core/errors.js';
import { parseServerSentEvents } from '../../core/sse.js';
import type { ChatCompletionStreamChunk } from './types.js';

/** The `code` of the error thrown when a chat stream ends before `data: [DONE]`. */
export const STREAM_INCOMPLETE = 'WEFT_STREAM_INCOMPLETE';

/** Where a stream came from, for error messages. */
export interface StreamOrigin {
  method: string;
  path: string;
  requestId: string | undefined;
  /**
   * Builds the error of an error event: the core's `apiError`, which scrubs the API key, since a server may
   * echo the request's headers in the event.
   */
  apiError: (init: Omit<ApiErrorInit, 'secrets'>) => WeftApiError;
}

/**
 * Reads the chunks of a streamed chat completion from the body's bytes: one JSON chunk per `data:` event,
 * comments and keep-alives skipped, and the end at `data: [DONE]`, after the final usage chunk.
 *
 * Everything that goes wrong is a weft error naming the request: a `data: {"error": …}` event (or an
 * `event: error`) becomes the {@link WeftApiError} of its code (a 500-class error when it has none); a
 * connection that breaks, or a body that ends without `[DONE]`, becomes a {@link WeftConnectionError} that
 * says how many chunks arrived, since the caller holds a partial answer.
 */
export async function* readChatChunks(
  bytes: AsyncIterable<Uint8Array>,
  origin: StreamOrigin,
): AsyncGenerator<ChatCompletionStreamChunk, void, undefined> {
  const { method, path } = origin;
  let received = 0;
  try {
    for await (const event of parseServerSentEvents(bytes)) {
      const data = event.data.trim();
      if (event.event === 'error') throw streamErrorEvent(errorBody(data), origin);
      if (data === '') continue;
      if (data === '[DONE]') return;
      const parsed = parseEventData(data, origin, received);
      if (isErrorEvent(parsed)) throw streamErrorEvent(parsed, origin);
      received += 1;
      yield parsed as ChatCompletionStreamChunk;
    }
  } catch (error) {
    // A cut connection arrives as the core's plain connection error; say what it means for this response.
    if (error instanceof WeftConnectionError && !(error instanceof WeftTimeoutError)) {
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

/**
 * The error for a streamed request that got one JSON body instead of events: the error it carries, or a
 * parse error saying the service did not stream.
 */
export function notAnEventStream(text: string, origin: StreamOrigin): Error {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (isErrorEvent(parsed)) return streamErrorEvent(parsed, origin);
  return new WeftParseError(
    `weft: ${origin.method} ${origin.path}: asked for a stream (stream: true) but the service answered with one JSON body; it may not stream this model.`,
    origin.method,
    origin.path,
  );
}

/** The data of an `event: error`, in the `{error: …}` shape whatever the server sent. */
function errorBody(data: string): { error: unknown } {
  try {
    const parsed: unknown = JSON.parse(data);
    return isErrorEvent(parsed) ? parsed : { error: parsed };
  } catch {
    return { error: { message: data || 'the service sent an error event without a message' } };
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
  return origin.apiError({
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
