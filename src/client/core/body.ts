import { Readable } from 'node:stream';
import { MultipartBody } from './multipart.js';

/** Raw bytes to send as they are (e.g. OTLP protobuf): bytes, a Blob, or a stream of bytes. */
export type BinaryBody = Uint8Array | ArrayBuffer | Blob | Readable | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** A request body ready for undici, opened afresh for every attempt. */
export interface EncodedBody {
  readonly contentType: string | undefined;
  readonly contentLength: number | undefined;
  /** False for a one-shot stream: such a request is never retried. */
  readonly replayable: boolean;
  open(): string | Uint8Array | Readable;
}

/**
 * Chooses the encoding from the body's type: a {@link MultipartBody} is sent as `multipart/form-data`,
 * bytes / Blob / streams as `application/octet-stream` (override with a `content-type` header), and
 * anything else as JSON.
 */
export function encodeBody(body: unknown): EncodedBody | undefined {
  if (body === undefined) return undefined;
  if (body instanceof MultipartBody) {
    return {
      contentType: body.contentType,
      contentLength: body.contentLength,
      replayable: body.replayable,
      open: () => body.open(),
    };
  }
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) {
    const bytes = body instanceof ArrayBuffer ? new Uint8Array(body) : body;
    return { contentType: OCTET_STREAM, contentLength: bytes.byteLength, replayable: true, open: () => bytes };
  }
  if (body instanceof Blob) {
    return {
      contentType: body.type || OCTET_STREAM,
      contentLength: body.size,
      replayable: true,
      open: () => Readable.from(body.stream() as unknown as AsyncIterable<Uint8Array>),
    };
  }
  if (isAsyncIterable(body)) {
    holdErrors(body);
    let opened = false;
    return {
      contentType: OCTET_STREAM,
      contentLength: undefined,
      replayable: false,
      open: () => {
        if (opened) throw new TypeError('weft: a streamed request body can be sent only once.');
        opened = true;
        return Readable.from(readStream(body));
      },
    };
  }
  const json = JSON.stringify(body);
  return { contentType: 'application/json', contentLength: Buffer.byteLength(json), replayable: true, open: () => json };
}

const OCTET_STREAM = 'application/octet-stream';

/**
 * A failure of a stream given as a request body, marked so that the attempt reports it as the body's fault
 * ({@link WeftRequestBodyError}) rather than as a connection error. `cause` is the stream's own error.
 */
export class BodyStreamError extends Error {
  constructor(cause: unknown) {
    super('weft: the request body stream failed', { cause });
  }
}

/**
 * Listens to a Node stream's `error` from the moment weft holds it. weft reads the stream only once the
 * connection is up, and until then nothing else listens: an error before that (a file that does not exist)
 * would crash the process as an unhandled `error` event. The error is not lost: reading the failed stream
 * throws it, and the request rejects with it.
 */
export function holdErrors(source: unknown): void {
  if (source instanceof Readable) source.on('error', ignore);
}

/** The chunks of a caller's stream as bytes; its failure becomes a {@link BodyStreamError}. */
export async function* readStream(source: AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  try {
    // Node's web ReadableStream and Readable are both async iterable; the cast only narrows the type.
    for await (const chunk of source as AsyncIterable<Uint8Array | string>) {
      yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    }
  } catch (error) {
    throw new BodyStreamError(error);
  }
}

function ignore(): void {}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
