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
    let opened = false;
    return {
      contentType: OCTET_STREAM,
      contentLength: undefined,
      replayable: false,
      open: () => {
        if (opened) throw new TypeError('weft: a streamed request body can be sent only once.');
        opened = true;
        return body instanceof Readable ? body : Readable.from(body);
      },
    };
  }
  const json = JSON.stringify(body);
  return { contentType: 'application/json', contentLength: Buffer.byteLength(json), replayable: true, open: () => json };
}

const OCTET_STREAM = 'application/octet-stream';

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
