import type { AttributeValue, Attributes, Link, SpanContext } from '@opentelemetry/api';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { FIXED32, FIXED64, int64VarintSize, LENGTH_DELIMITED, utf8Length, VARINT, varintSize, Writer } from './protobuf-writer.js';

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
