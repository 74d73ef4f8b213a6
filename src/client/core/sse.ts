import { type ParseError, createParser } from 'eventsource-parser';

/** One server-sent event: its `data` lines joined by `\n`, with its `event` name and `id` when sent. */
export interface ServerSentEvent {
  data: string;
  event?: string;
  id?: string;
}

/** Options of {@link parseServerSentEvents}. */
export interface ParseServerSentEventsOptions {
  /**
   * Most characters held for one unfinished event or line; beyond it the stream fails rather than grow without
   * bound. Default 16 MiB.
   */
  maxBufferSize?: number;
}

/** Thrown when a server-sent event stream breaks the format badly enough that reading on is pointless. */
export class ServerSentEventsError extends Error {
  override readonly name = 'ServerSentEventsError';
}

const DEFAULT_MAX_BUFFER_SIZE = 16 * 1024 * 1024;

/**
 * Reads a `text/event-stream` body as events. Comments (`: keep-alive`) and unknown fields are skipped as the
 * format requires; an event still unfinished when the bytes end is dropped, since it never arrived whole.
 *
 * Bytes are decoded as a stream, so a character or a line split across chunks comes out whole. Leaving the
 * loop early (`break`, a throw) returns the source iterator, which for an HTTP body stops the request.
 *
 * @example
 * for await (const event of parseServerSentEvents(response.body)) {
 *   if (event.data === '[DONE]') break;
 *   console.log(JSON.parse(event.data));
 * }
 */
export async function* parseServerSentEvents(
  bytes: AsyncIterable<Uint8Array | string>,
  options: ParseServerSentEventsOptions = {},
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const ready: ServerSentEvent[] = [];
  let failure: ParseError | undefined;
  const parser = createParser({
    maxBufferSize: options.maxBufferSize ?? DEFAULT_MAX_BUFFER_SIZE,
    onEvent: (message) => {
      const event: ServerSentEvent = { data: message.data };
      if (message.event !== undefined) event.event = message.event;
      if (message.id !== undefined) event.id = message.id;
      ready.push(event);
    },
    onError: (error) => {
      // Unknown fields and bad `retry` values are ignored by the format; only an overflow ends the stream.
      if (error.type === 'max-buffer-size-exceeded') failure = error;
    },
  });
  const decoder = new TextDecoder('utf-8');
  // The format ends a line with CRLF, LF or a lone CR. The parser holds a CR that ends one piece of text until a later
  // piece brings another line end, so that an event whose lines end in lone CRs came out a piece late, or never when
  // the stream broke or ended first (a chat stream's [DONE]): what it reads depended on how the bytes were split.
  // Line ends are made LFs here, a CR at once, and the LF of a CRLF split across pieces is dropped.
  let afterCR = false;
  const feed = (text: string) => {
    if (text === '') return;
    const rest = afterCR && text.startsWith('\n') ? text.slice(1) : text;
    afterCR = text.endsWith('\r');
    if (rest !== '') parser.feed(rest.replace(/\r\n?/g, '\n'));
  };
  for await (const chunk of bytes) {
    feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    if (failure) throw new ServerSentEventsError(`weft: event stream rejected: ${failure.message}.`);
    while (ready.length > 0) yield ready.shift() as ServerSentEvent;
  }
  feed(decoder.decode());
  while (ready.length > 0) yield ready.shift() as ServerSentEvent;
}
