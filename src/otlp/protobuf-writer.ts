import type { HrTime } from '@opentelemetry/api';

// The protobuf wire format, as far as the OTLP trace messages need it: wire types, sizes, and a growable writer.
// Which fields make up which message is encode.ts.

/** Wire types of a field's tag. */
export const VARINT = 0;
export const FIXED64 = 1;
export const LENGTH_DELIMITED = 2;
export const FIXED32 = 5;

/** The size of {@link Writer.int64}'s varint: ten bytes for a negative value. */
export function int64VarintSize(value: number): number {
  return value < 0 ? 10 : varintSize(value);
}

/** The size of a non-negative integer's varint, in bytes. */
export function varintSize(value: number): number {
  let size = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) size++;
  return size;
}

/** Bytes of `text` in UTF-8 (a lone surrogate counts as U+FFFD's three, as the encoder writes it). */
export function utf8Length(text: string): number {
  // Short ASCII, the usual key or small value, is measured here: a native call costs more than the loop.
  if (text.length < 32) {
    let i = 0;
    while (i < text.length && text.charCodeAt(i) < 0x80) i++;
    if (i === text.length) return i;
  }
  return Buffer.byteLength(text, 'utf8');
}

/** The value of a hex digit, either case; 0 for anything else (an id that is not hex is never the SDK's own). */
function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return 0;
}

/** A growable buffer with the protobuf primitives the trace messages need. */
export class Writer {
  private buffer: Buffer;
  private pos = 0;

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(capacity);
  }

  finish(): Uint8Array {
    return this.buffer.subarray(0, this.pos);
  }

  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  /** A non-negative integer below 2^64, as a varint. */
  varint(value: number): void {
    this.reserve(10);
    let rest = value;
    while (rest >= 0x80) {
      this.buffer[this.pos++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.buffer[this.pos++] = rest;
  }

  /** An int64 varint: a negative value as its 64-bit two's complement, ten bytes. */
  int64(value: number): void {
    if (value >= 0) {
      this.varint(value);
      return;
    }
    // Two's complement of |value| in two 32-bit halves.
    const magnitude = -value;
    let low = ~(magnitude % 0x100000000) >>> 0;
    let high = ~Math.floor(magnitude / 0x100000000) >>> 0;
    low = (low + 1) >>> 0;
    if (low === 0) high = (high + 1) >>> 0;
    this.reserve(10);
    while (high > 0 || low > 0x7f) {
      this.buffer[this.pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    this.buffer[this.pos++] = low;
  }

  fixed32(value: number): void {
    this.uint32(value >>> 0);
  }

  double(value: number): void {
    this.reserve(8);
    this.buffer.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  /** An `HrTime` as nanoseconds since the epoch, fixed64, computed exactly without BigInt. */
  hrTime([seconds, nanos]: HrTime): void {
    // seconds × 10^9 exceeds 2^53 today: split seconds into 16-bit halves so every product stays exact.
    const secondsLow = seconds % 0x10000;
    const secondsHigh = (seconds - secondsLow) / 0x10000;
    const lowPart = secondsLow * 1e9 + nanos;
    const highPart = secondsHigh * 1e9;
    // total = highPart × 2^16 + lowPart
    const mixed = (highPart % 0x10000) * 0x10000 + lowPart;
    const low = mixed % 0x100000000;
    const high = Math.floor(highPart / 0x10000) + Math.floor(mixed / 0x100000000);
    this.uint32(low);
    this.uint32(high);
  }

  private uint32(value: number): void {
    this.reserve(4);
    const b = this.buffer;
    b[this.pos++] = value & 0xff;
    b[this.pos++] = (value >>> 8) & 0xff;
    b[this.pos++] = (value >>> 16) & 0xff;
    b[this.pos++] = (value >>> 24) & 0xff;
  }

  /** A length-delimited field's tag and length. */
  bytesHeader(field: number, length: number): void {
    this.tag(field, LENGTH_DELIMITED);
    this.varint(length);
  }

  bytes(value: Uint8Array): void {
    this.reserve(value.length);
    this.buffer.set(value, this.pos);
    this.pos += value.length;
  }

  stringField(field: number, text: string): void {
    const length = utf8Length(text);
    this.bytesHeader(field, length);
    this.utf8(text, length);
  }

  /** `text`, whose UTF-8 length is `length`. */
  utf8(text: string, length: number): void {
    this.reserve(length);
    if (length === text.length && length < 32) {
      for (let i = 0; i < length; i++) this.buffer[this.pos + i] = text.charCodeAt(i);
    } else {
      this.buffer.write(text, this.pos, length, 'utf8');
    }
    this.pos += length;
  }

  /** An id given in hex (trace and span ids), as bytes; decoded here, a native call costs more for 16 bytes. */
  hexField(field: number, hex: string): void {
    const length = hex.length >>> 1;
    this.bytesHeader(field, length);
    this.reserve(length);
    for (let i = 0; i < length; i++) {
      this.buffer[this.pos++] = (hexDigit(hex.charCodeAt(2 * i)) << 4) | hexDigit(hex.charCodeAt(2 * i + 1));
    }
  }

  /** Starts a length-delimited message whose length is not known yet: one byte is kept for it. */
  startMessage(): number {
    this.reserve(1);
    return this.pos++;
  }

  /** Writes the length of the message started at `start`, moving its bytes up if the length needs more than one. */
  finishMessage(start: number): void {
    const length = this.pos - start - 1;
    const size = varintSize(length);
    if (size > 1) {
      this.reserve(size - 1);
      this.buffer.copyWithin(start + size, start + 1, this.pos);
      this.pos += size - 1;
    }
    let at = start;
    let rest = length;
    while (rest >= 0x80) {
      this.buffer[at++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.buffer[at] = rest;
  }

  private reserve(bytes: number): void {
    if (this.pos + bytes <= this.buffer.length) return;
    let capacity = this.buffer.length * 2;
    while (capacity < this.pos + bytes) capacity *= 2;
    const grown = Buffer.allocUnsafe(capacity);
    this.buffer.copy(grown, 0, 0, this.pos);
    this.buffer = grown;
  }
}
