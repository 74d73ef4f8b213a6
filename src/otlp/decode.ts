import protobuf from 'protobufjs';
import { otlpType } from './schema.js';

/** OTLP span kinds, as numbers on the wire. */
export const SpanKindCode = { UNSPECIFIED: 0, INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;
/** OTLP status codes, as numbers on the wire. */
export const StatusCodeValue = { UNSET: 0, OK: 1, ERROR: 2 } as const;

/** An attribute value after decoding: OTLP's AnyValue as plain JavaScript. */
export type AttributeValue =
  | string
  | number
  | boolean
  | bigint
  | Uint8Array
  | null
  | AttributeValue[]
  | { [key: string]: AttributeValue };

/** One span event, decoded. */
export interface DecodedEvent {
  name: string;
  timeUnixNano: bigint;
  attributes: Record<string, AttributeValue>;
}

/** One span link, decoded. */
export interface DecodedLink {
  traceId: string;
  spanId: string;
  attributes: Record<string, AttributeValue>;
}

/** One span, decoded, with its resource and scope folded in so that it can be read on its own. */
export interface DecodedSpan {
  /** 32 lowercase hex characters. */
  traceId: string;
  /** 16 lowercase hex characters. */
  spanId: string;
  /** 16 lowercase hex characters, or undefined for a root span. */
  parentSpanId: string | undefined;
  name: string;
  /** One of {@link SpanKindCode}. */
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, AttributeValue>;
  droppedAttributesCount: number;
  events: DecodedEvent[];
  links: DecodedLink[];
  /** `code` is one of {@link StatusCodeValue}. */
  status: { code: number; message: string };
  resource: Record<string, AttributeValue>;
  scope: { name: string; version: string };
}

/** A decoded `ExportTraceServiceRequest`, flattened to its spans. */
export interface DecodedTraceExport {
  spans: DecodedSpan[];
}

/** Thrown when bytes are not an OTLP trace export. */
export class OtlpDecodeError extends Error {
  override readonly name = 'OtlpDecodeError';
}

// protobufjs's decoded objects are untyped; these are the shapes we read from them.
interface RawAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: unknown;
  doubleValue?: number;
  arrayValue?: { values?: RawAnyValue[] };
  kvlistValue?: { values?: RawKeyValue[] };
  bytesValue?: Uint8Array;
  value?: string;
}
interface RawKeyValue {
  key?: string;
  value?: RawAnyValue;
}

function toHex(bytes: Uint8Array | undefined): string {
  return bytes ? Buffer.from(bytes).toString('hex') : '';
}

// Longs arrive as protobufjs Long objects (or numbers when small); read them exactly as bigint.
function toBigInt(value: unknown): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'number' || typeof value === 'bigint') return BigInt(value);
  if (typeof value === 'string') return BigInt(value);
  const long = value as { low: number; high: number; unsigned?: boolean };
  const low = BigInt(long.low >>> 0);
  const high = BigInt(long.high >>> 0);
  const unsigned = (high << 32n) | low;
  return long.unsigned ? unsigned : BigInt.asIntN(64, unsigned);
}

function readAnyValue(raw: RawAnyValue | undefined): AttributeValue {
  if (!raw) return null;
  switch (raw.value) {
    case 'stringValue':
      return raw.stringValue ?? '';
    case 'boolValue':
      return raw.boolValue ?? false;
    case 'intValue': {
      const n = toBigInt(raw.intValue);
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
    }
    case 'doubleValue':
      return raw.doubleValue ?? 0;
    case 'arrayValue':
      return (raw.arrayValue?.values ?? []).map(readAnyValue);
    case 'kvlistValue':
      return readAttributes(raw.kvlistValue?.values);
    case 'bytesValue':
      return raw.bytesValue ?? new Uint8Array();
    default:
      return null;
  }
}

function readAttributes(list: RawKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of list ?? []) out[kv.key ?? ''] = readAnyValue(kv.value);
  return out;
}

// protobufjs skips a field numbered 0 as an unknown field, so that a run of zero bytes decodes as an empty
// export; other implementations refuse it, as 0 is no field number. This walk finds one at any depth.
function checkFieldNumbers(reader: protobuf.Reader, end: number, type: protobuf.Type): void {
  while (reader.pos < end) {
    const offset = reader.pos;
    const tag = reader.uint32();
    if (tag >>> 3 === 0) throw new Error(`invalid field number 0 at offset ${offset}`);
    const nested = type.fieldsById[tag >>> 3]?.resolvedType;
    if ((tag & 7) === 2 && nested instanceof protobuf.Type) {
      const length = reader.uint32();
      checkFieldNumbers(reader, reader.pos + length, nested);
    } else {
      reader.skipType(tag & 7);
    }
  }
}

/**
 * Decodes the body of an OTLP/HTTP protobuf trace export (`POST /v1/traces`) into plain spans.
 *
 * @throws {OtlpDecodeError} when the bytes are not a valid `ExportTraceServiceRequest`.
 * @example
 * const { spans } = decodeTraceExport(body);
 * for (const span of spans) console.log(span.name, span.attributes['gen_ai.request.model']);
 */
export function decodeTraceExport(body: Uint8Array): DecodedTraceExport {
  let message: protobuf.Message;
  try {
    const type = otlpType('ExportTraceServiceRequest');
    message = type.decode(body);
    checkFieldNumbers(protobuf.Reader.create(body), body.length, type);
  } catch (error) {
    throw new OtlpDecodeError(`not an OTLP ExportTraceServiceRequest: ${(error as Error).message}`);
  }
  // biome-ignore lint/suspicious/noExplicitAny: protobufjs messages are untyped trees
  const request = message as any;
  const spans: DecodedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const resource = readAttributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      const scope = { name: ss.scope?.name ?? '', version: ss.scope?.version ?? '' };
      for (const s of ss.spans ?? []) {
        const parent = toHex(s.parentSpanId);
        spans.push({
          traceId: toHex(s.traceId),
          spanId: toHex(s.spanId),
          parentSpanId: parent === '' ? undefined : parent,
          name: s.name ?? '',
          kind: s.kind ?? 0,
          startTimeUnixNano: toBigInt(s.startTimeUnixNano),
          endTimeUnixNano: toBigInt(s.endTimeUnixNano),
          attributes: readAttributes(s.attributes),
          droppedAttributesCount: s.droppedAttributesCount ?? 0,
          events: (s.events ?? []).map((e: { name?: string; timeUnixNano?: unknown; attributes?: RawKeyValue[] }) => ({
            name: e.name ?? '',
            timeUnixNano: toBigInt(e.timeUnixNano),
            attributes: readAttributes(e.attributes),
          })),
          links: (s.links ?? []).map((l: { traceId?: Uint8Array; spanId?: Uint8Array; attributes?: RawKeyValue[] }) => ({
            traceId: toHex(l.traceId),
            spanId: toHex(l.spanId),
            attributes: readAttributes(l.attributes),
          })),
          status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
          resource,
          scope,
        });
      }
    }
  }
  return { spans };
}

/**
 * Encodes an `ExportTraceServiceResponse` as protobuf, as receivers that answer in the request's encoding do (an
 * OpenTelemetry collector; the trace service answers JSON): for the tests' and the bench's receivers.
 * `rejectedSpans: 0` encodes the empty (full success) response.
 */
export function encodeTraceExportResponse(rejectedSpans = 0, errorMessage = ''): Uint8Array {
  const type = otlpType('ExportTraceServiceResponse');
  const payload = rejectedSpans > 0 || errorMessage ? { partialSuccess: { rejectedSpans, errorMessage } } : {};
  return type.encode(type.fromObject(payload)).finish();
}
