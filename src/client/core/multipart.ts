import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { type BinaryBody, holdErrors, readStream } from './body.js';

/** File content for a multipart part: bytes, a Blob (e.g. from `fs.openAsBlob`), or a stream of bytes. */
export type FileContent = BinaryBody;

interface Part {
  name: string;
  filename: string | undefined;
  contentType: string | undefined;
  content: string | Uint8Array | Blob | AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;
}

/**
 * A `multipart/form-data` request body built part by part and streamed as it is sent, so a large file
 * (a Blob or a stream) is never held in memory. A body made only of text, bytes and Blobs can be sent
 * again (and so retried); one holding a stream can be sent once.
 *
 * @example
 * const form = new MultipartBody().field('project_id', 'team/proj').file('file', bytes, { filename: 'a.png' });
 * await core.request({ method: 'POST', path: '/file/create', body: form });
 */
export class MultipartBody {
  /** The boundary between parts; random, so it cannot occur by chance in the content. */
  readonly boundary = `----weft-${randomBytes(12).toString('hex')}`;
  private readonly parts: Part[] = [];

  /** Adds a text field. */
  field(name: string, value: string): this {
    this.parts.push({ name, filename: undefined, contentType: undefined, content: value });
    return this;
  }

  /** Adds a file part. */
  file(name: string, content: FileContent, options: { filename?: string | undefined; contentType?: string | undefined } = {}): this {
    const normalized = content instanceof ArrayBuffer ? new Uint8Array(content) : content;
    holdErrors(normalized);
    const contentType =
      options.contentType ?? (normalized instanceof Blob && normalized.type ? normalized.type : 'application/octet-stream');
    this.parts.push({ name, filename: options.filename ?? 'blob', contentType, content: normalized });
    return this;
  }

  /** The `Content-Type` header value, boundary included. */
  get contentType(): string {
    return `multipart/form-data; boundary=${this.boundary}`;
  }

  /** True when every part can be read again, so the request may be retried. */
  get replayable(): boolean {
    return this.parts.every((p) => typeof p.content === 'string' || p.content instanceof Uint8Array || p.content instanceof Blob);
  }

  /** The total size in bytes when every part's size is known up front, else undefined (sent chunked). */
  get contentLength(): number | undefined {
    let total = 0;
    for (const part of this.parts) {
      const size = sizeOf(part.content);
      if (size === undefined) return undefined;
      total += Buffer.byteLength(this.partHeader(part)) + size + 2;
    }
    return total + Buffer.byteLength(this.closing());
  }

  /** A fresh stream of the encoded body. */
  open(): Readable {
    return Readable.from(this.encode());
  }

  private async *encode(): AsyncGenerator<Uint8Array> {
    for (const part of this.parts) {
      yield Buffer.from(this.partHeader(part));
      const { content } = part;
      if (typeof content === 'string') yield Buffer.from(content);
      else if (content instanceof Uint8Array) yield content;
      else if (content instanceof Blob) yield* readStream(content.stream());
      else yield* readStream(content);
      yield Buffer.from('\r\n');
    }
    yield Buffer.from(this.closing());
  }

  private partHeader(part: Part): string {
    let disposition = `form-data; name="${quote(part.name)}"`;
    if (part.filename !== undefined) disposition += `; filename="${quote(part.filename)}"`;
    let header = `--${this.boundary}\r\nContent-Disposition: ${disposition}\r\n`;
    if (part.contentType !== undefined) header += `Content-Type: ${part.contentType}\r\n`;
    return `${header}\r\n`;
  }

  private closing(): string {
    return `--${this.boundary}--\r\n`;
  }
}

function sizeOf(content: Part['content']): number | undefined {
  if (typeof content === 'string') return Buffer.byteLength(content);
  if (content instanceof Uint8Array) return content.byteLength;
  if (content instanceof Blob) return content.size;
  return undefined;
}

/** Escapes a field or file name for the Content-Disposition header (WHATWG's multipart encoding rules). */
function quote(value: string): string {
  return value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}
