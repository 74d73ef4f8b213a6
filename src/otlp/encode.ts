import type { AttributeValue, Attributes, HrTime, Link, SpanContext } from '@opentelemetry/api';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';

/**
 * Encodes spans as an OTLP `ExportTraceServiceRequest`, byte for byte what OTel's `ProtobufTraceSerializer`
 * writes (the tests compare the two on every kind of span), in a fraction of its time: OTel's writer reads each
 * string three times in JavaScript, a character at a time (to size it, to check it is ASCII, to copy it), which
 * makes the message content of chat spans the most expensive part of an export. Here a string's size and bytes
 * come from Node's native UTF-8 encoder, and the sizes of string attributes (nearly all of them) are known before
 * they are written, so nothing is moved. Length-delimited messages whose size is not known in advance (a span, an
 * array value) get one byte for their length and are moved up once in the rare case they are longer than 127.
 */
export function encodeTraceExport(spans: readonly ReadableSpan[]): Uint8Array {
  const writer = new Writer(Math.max(1024, spans.length * expectedBytesPerSpan));
  for (const [resource, scopes] of groupByResourceAndScope(spans)) {
    writer.tag(1, LENGTH_DELIMITED);
    const resourceSpans = writer.startMessage();
    writer.tag(1, LENGTH_DELIMITED);
    const resourceMessage = writer.startMessage();
    writeAttributes(writer, resource.attributes, 1);
    writer.tag(2, VARINT);
    writer.varint(0);
    writer.finishMessage(resourceMessage);
    for (const scopeSpans of scopes.values()) {
      writer.tag(2, LENGTH_DELIMITED);
      writeScopeSpans(writer, scopeSpans);
    }
    if (resource.schemaUrl) writer.stringField(3, resource.schemaUrl);
    writer.finishMessage(resourceSpans);
  }
  const bytes = writer.finish();
  if (spans.length > 0) expectedBytesPerSpan = Math.ceil((bytes.length / spans.length) * 1.25);
  return bytes;
}

// The next export's buffer is sized from the last one's bytes per span, so that it rarely has to grow.
let expectedBytesPerSpan = 1024;

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

// Span flags of OTLP: the W3C trace flags, and whether the parent's remoteness is known and true.
const CONTEXT_HAS_IS_REMOTE = 0x100;
const CONTEXT_IS_REMOTE = 0x200;

type SpanResource = ReadableSpan['resource'];
type SpanScope = ReadableSpan['instrumentationScope'];

/**
 * A span of OTel's 1.x SDK, which apps on NodeSDK 0.5x hand to `weftSpanProcessor()`: the scope and the parent
 * had other names there (`instrumentationLibrary`, `parentSpanId`), and the parent's remoteness was not kept.
 */
type SpanOfSdk1 = { instrumentationLibrary?: SpanScope; parentSpanId?: string };

function scopeOf(span: ReadableSpan): SpanScope {
  return span.instrumentationScope ?? (span as SpanOfSdk1).instrumentationLibrary;
}

function parentOf(span: ReadableSpan): { spanId: string; isRemote?: boolean } | undefined {
  if (span.parentSpanContext) return span.parentSpanContext;
  const spanId = (span as SpanOfSdk1).parentSpanId;
  return spanId ? { spanId } : undefined;
}

/** Spans grouped by resource and then scope, by identity, in the order they first appear. */
function groupByResourceAndScope(spans: readonly ReadableSpan[]): Map<SpanResource, Map<SpanScope, ReadableSpan[]>> {
  const resources = new Map<SpanResource, Map<SpanScope, ReadableSpan[]>>();
  for (const span of spans) {
    let scopes = resources.get(span.resource);
    if (!scopes) {
      scopes = new Map();
      resources.set(span.resource, scopes);
    }
    const scope = scopeOf(span);
    let group = scopes.get(scope);
    if (!group) {
      group = [];
      scopes.set(scope, group);
    }
    group.push(span);
  }
  return resources;
}

function writeScopeSpans(writer: Writer, spans: readonly ReadableSpan[]): void {
  const scopeSpans = writer.startMessage();
  const scope = scopeOf(spans[0]!) as SpanScope & { attributes?: Attributes; droppedAttributesCount?: number };
  writer.tag(1, LENGTH_DELIMITED);
  const scopeMessage = writer.startMessage();
  writer.stringField(1, scope.name);
  if (scope.version) writer.stringField(2, scope.version);
  if (scope.attributes) writeAttributes(writer, scope.attributes, 3);
  if (scope.droppedAttributesCount) {
    writer.tag(4, VARINT);
    writer.varint(scope.droppedAttributesCount);
  }
  writer.finishMessage(scopeMessage);
  for (const span of spans) {
    writer.tag(2, LENGTH_DELIMITED);
    writeSpan(writer, span);
  }
  if (scope.schemaUrl) writer.stringField(3, scope.schemaUrl);
  writer.finishMessage(scopeSpans);
}

function writeSpan(writer: Writer, span: ReadableSpan): void {
  const message = writer.startMessage();
  const context = span.spanContext();
  writer.hexField(1, context.traceId);
  writer.hexField(2, context.spanId);
  const traceState = context.traceState?.serialize();
  if (traceState) writer.stringField(3, traceState);
  const parent = parentOf(span);
  if (parent?.spanId) writer.hexField(4, parent.spanId);
  writer.stringField(5, span.name);
  // OTLP's kinds start at 1 (0 is "unspecified"); the API's at 0.
  if (span.kind != null) {
    writer.tag(6, VARINT);
    writer.varint(span.kind + 1);
  }
  writer.tag(7, FIXED64);
  writer.hrTime(span.startTime);
  writer.tag(8, FIXED64);
  writer.hrTime(span.endTime);
  writeAttributes(writer, span.attributes, 9);
  writer.tag(10, VARINT);
  writer.varint(span.droppedAttributesCount);
  for (const event of span.events) writeEvent(writer, event);
  writer.tag(12, VARINT);
  writer.varint(span.droppedEventsCount);
  for (const link of span.links) writeLink(writer, link);
  writer.tag(14, VARINT);
  writer.varint(span.droppedLinksCount);
  writer.tag(15, LENGTH_DELIMITED);
  const status = writer.startMessage();
  if (span.status.message) writer.stringField(2, span.status.message);
  writer.tag(3, VARINT);
  writer.varint(span.status.code);
  writer.finishMessage(status);
  writer.tag(16, FIXED32);
  writer.fixed32(spanFlags(context, parent?.isRemote));
  writer.finishMessage(message);
}

function writeEvent(writer: Writer, event: TimedEvent): void {
  writer.tag(11, LENGTH_DELIMITED);
  const message = writer.startMessage();
  writer.tag(1, FIXED64);
  writer.hrTime(event.time);
  writer.stringField(2, event.name);
  if (event.attributes) writeAttributes(writer, event.attributes, 3);
  writer.tag(4, VARINT);
  writer.varint(event.droppedAttributesCount || 0);
  writer.finishMessage(message);
}

function writeLink(writer: Writer, link: Link): void {
  writer.tag(13, LENGTH_DELIMITED);
  const message = writer.startMessage();
  writer.hexField(1, link.context.traceId);
  writer.hexField(2, link.context.spanId);
  const traceState = link.context.traceState?.serialize();
  if (traceState) writer.stringField(3, traceState);
  if (link.attributes) writeAttributes(writer, link.attributes, 4);
  writer.tag(5, VARINT);
  writer.varint(link.droppedAttributesCount || 0);
  writer.tag(6, FIXED32);
  writer.fixed32(spanFlags(link.context, link.context.isRemote));
  writer.finishMessage(message);
}

function spanFlags(context: SpanContext, isRemote: boolean | undefined): number {
  return (context.traceFlags & 0xff) | CONTEXT_HAS_IS_REMOTE | (isRemote ? CONTEXT_IS_REMOTE : 0);
}

/** Each own property as a `KeyValue` in repeated field `field`. */
function writeAttributes(writer: Writer, attributes: Attributes, field: number): void {
  // Object.keys: the own enumerable keys, in the order for-in gives them, and cheaper to walk.
  const keys = Object.keys(attributes);
  for (let i = 0; i < keys.length; i++) {
    writer.tag(field, LENGTH_DELIMITED);
    writeKeyValue(writer, keys[i]!, attributes[keys[i]!]);
  }
}

/** A `KeyValue` message, length first; sized in advance when its value is a string, a number or a boolean. */
function writeKeyValue(writer: Writer, key: string, value: unknown): void {
  const keyBytes = utf8Length(key);
  const valueSize = scalarValueSize(value);
  if (valueSize < 0) {
    const message = writer.startMessage();
    writer.bytesHeader(1, keyBytes);
    writer.utf8(key, keyBytes);
    writer.tag(2, LENGTH_DELIMITED);
    const any = writer.startMessage();
    writeAnyValue(writer, value);
    writer.finishMessage(any);
    writer.finishMessage(message);
    return;
  }
  writer.varint(1 + varintSize(keyBytes) + keyBytes + 1 + varintSize(valueSize) + valueSize);
  writer.bytesHeader(1, keyBytes);
  writer.utf8(key, keyBytes);
  writer.tag(2, LENGTH_DELIMITED);
  writer.varint(valueSize);
  writeAnyValue(writer, value);
}

/** The size of the `AnyValue` of a string, number or boolean; -1 for anything else. */
function scalarValueSize(value: unknown): number {
  switch (typeof value) {
    case 'string': {
      const bytes = utf8Length(value);
      return 1 + varintSize(bytes) + bytes;
    }
    case 'boolean':
      return 2;
    case 'number':
      return isInt64(value) ? 1 + int64VarintSize(value) : 9;
    default:
      return -1;
  }
}

/** The `AnyValue` fields of `value`; nothing for a value OTLP cannot hold (null, undefined, a function). */
function writeAnyValue(writer: Writer, value: unknown): void {
  if (typeof value === 'string') {
    writer.stringField(1, value);
  } else if (typeof value === 'boolean') {
    writer.tag(2, VARINT);
    writer.varint(value ? 1 : 0);
  } else if (typeof value === 'number') {
    if (isInt64(value)) {
      writer.tag(3, VARINT);
      writer.int64(value);
    } else {
      writer.tag(4, FIXED64);
      writer.double(value);
    }
  } else if (value instanceof Uint8Array) {
    writer.bytesHeader(7, value.length);
    writer.bytes(value);
  } else if (Array.isArray(value)) {
    writer.tag(5, LENGTH_DELIMITED);
    const array = writer.startMessage();
    for (const item of value as AttributeValue[]) {
      writer.tag(1, LENGTH_DELIMITED);
      const any = writer.startMessage();
      writeAnyValue(writer, item);
      writer.finishMessage(any);
    }
    writer.finishMessage(array);
  } else if (typeof value === 'object' && value !== null) {
    writer.tag(6, LENGTH_DELIMITED);
    const list = writer.startMessage();
    writeAttributes(writer, value as Attributes, 1);
    writer.finishMessage(list);
  }
}

// int64 holds every integer from -(2^63) up to (not including) 2^63; other numbers are sent as doubles.
const INT64_MIN = -(2 ** 63);
const INT64_END = 2 ** 63;

function isInt64(value: number): boolean {
  return Number.isInteger(value) && value >= INT64_MIN && value < INT64_END;
}

function int64VarintSize(value: number): number {
  return value < 0 ? 10 : varintSize(value);
}

function varintSize(value: number): number {
  let size = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) size++;
  return size;
}

/** Bytes of `text` in UTF-8 (a lone surrogate counts as U+FFFD's three, as the encoder writes it). */
function utf8Length(text: string): number {
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
class Writer {
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
