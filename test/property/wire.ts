import protobuf from 'protobufjs';
import { otlpType } from '../../src/otlp/schema.js';

/**
 * Reads an OTLP `ExportTraceServiceRequest` at the wire level, without decoding values: each span's own bytes,
 * with the bytes of the resource and scope it was sent under. Two exporters that agree on these agree on every
 * value, down to an int sent as a double or a NaN's bits, which a decoded comparison could not tell apart.
 */

export interface SpanOnWire {
  /** The span id, lowercase hex. */
  spanId: string;
  /** The span message's bytes, hex. */
  span: string;
  /** The resource message's bytes and its schema URL, hex. */
  resource: string;
  /** The scope message's bytes and its schema URL, hex. */
  scope: string;
}

interface Field {
  field: number;
  wire: number;
  bytes?: Uint8Array;
}

function fields(bytes: Uint8Array): Field[] {
  const reader = protobuf.Reader.create(bytes);
  const out: Field[] = [];
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (wire === 2) {
      out.push({ field, wire, bytes: reader.bytes() });
    } else {
      reader.skipType(wire);
      out.push({ field, wire });
    }
  }
  return out;
}

const hex = (bytes: Uint8Array | undefined): string => (bytes ? Buffer.from(bytes).toString('hex') : '');

/** Every span of an export body, at the wire level. */
export function spansOnWire(body: Uint8Array): SpanOnWire[] {
  const out: SpanOnWire[] = [];
  for (const resourceSpans of fields(body)) {
    if (resourceSpans.field !== 1) throw new Error(`unexpected field ${resourceSpans.field} in the request`);
    const parts = fields(resourceSpans.bytes!);
    const resource = `${hex(parts.find((f) => f.field === 1)?.bytes)}|${hex(parts.find((f) => f.field === 3)?.bytes)}`;
    for (const scopeSpans of parts.filter((f) => f.field === 2)) {
      const scopeParts = fields(scopeSpans.bytes!);
      const scope = `${hex(scopeParts.find((f) => f.field === 1)?.bytes)}|${hex(scopeParts.find((f) => f.field === 3)?.bytes)}`;
      for (const span of scopeParts.filter((f) => f.field === 2)) {
        const spanId = hex(fields(span.bytes!).find((f) => f.field === 2)?.bytes);
        out.push({ spanId, span: hex(span.bytes), resource, scope });
      }
    }
  }
  return out;
}

/** A span's bytes decoded for a readable failure message (longs as strings, bytes as hex). */
export function readableSpan(spanHex: string): unknown {
  const message = otlpType('Span').decode(Buffer.from(spanHex, 'hex'));
  return otlpType('Span').toObject(message, { longs: String, bytes: String, defaults: false, oneofs: true });
}

/**
 * Compares the spans two exporters sent, span by span: the same spans, each with the same bytes under the same
 * resource and scope bytes. Throws with both decodings of the first span that differs.
 */
export function expectSameSpansOnWire(ours: SpanOnWire[], theirs: SpanOnWire[]): void {
  const byId = new Map(ours.map((s) => [s.spanId, s]));
  if (ours.length !== theirs.length) {
    throw new Error(`weft sent ${ours.length} span(s), the stock exporter ${theirs.length}`);
  }
  for (const expected of theirs) {
    const actual = byId.get(expected.spanId);
    if (!actual) throw new Error(`span ${expected.spanId} was not sent by weft`);
    if (actual.span !== expected.span) {
      throw new Error(
        `span ${expected.spanId} differs on the wire:\nweft:  ${JSON.stringify(readableSpan(actual.span))}\nstock: ${JSON.stringify(readableSpan(expected.span))}`,
      );
    }
    if (actual.resource !== expected.resource) throw new Error(`span ${expected.spanId}: the resource differs:\n${actual.resource}\n${expected.resource}`);
    if (actual.scope !== expected.scope) throw new Error(`span ${expected.spanId}: the scope differs:\n${actual.scope}\n${expected.scope}`);
  }
}
