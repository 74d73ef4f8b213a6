export {
  type AttributeValue,
  type DecodedEvent,
  type DecodedLink,
  type DecodedSpan,
  type DecodedTraceExport,
  decodeTraceExport,
  encodeTraceExportResponse,
  OtlpDecodeError,
  SpanKindCode,
  StatusCodeValue,
} from './decode.js';
