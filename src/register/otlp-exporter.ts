import { CompressionAlgorithm, createOtlpNetworkExportDelegate, OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { createOtlpHttpExporterMetrics } from '@opentelemetry/otlp-exporter-base/node-http';
import {
  type IExportTraceServiceResponse,
  type ISerializer,
  ProtobufTraceSerializer,
  TraceExporterMetricsHelper,
} from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { reportOnce } from '../diagnostics.js';
import { encodeTraceExport } from '../otlp/encode.js';
import { createOtlpTransport, type OtlpTransportConfig } from './otlp-transport.js';

/** Called when the service accepted a request but refused some of its spans. */
export type RejectedSpansListener = (rejectedSpans: number, errorMessage: string) => void;

/** What {@link createOtlpExporter} is given: the transport's settings, and how long one export may take. */
export interface OtlpExporterConfig {
  url: string;
  headers: Record<string, string>;
  /** The longest one export may take, its retries included. */
  timeoutMillis: number;
  gzip: boolean;
  userAgent: string;
  /** See {@link OtlpTransportConfig.mayRetry}. */
  mayRetry?: (error: Error | undefined) => boolean;
}

/** The OTLP exporter, and a way to stop its open requests from keeping the process alive. */
export interface OtlpExporter extends SpanExporter {
  /**
   * Lets the process end while requests are still open (after weft gave up waiting for them at exit): their
   * sockets no longer hold the event loop, so the app's own work decides when the process ends.
   */
  releaseConnections(): void;
  /** Closes every connection at once, open requests included (they fail): weft is shutting down and gave up. */
  closeConnections(): void;
}

/**
 * Reads an export response in either encoding. The trace service answers a protobuf export with JSON
 * (`{"partial_success": null}` or `{"partial_success": {"rejected_spans": n, "error_message": "..."}}`), which
 * OTel's protobuf-only reader would log as malformed on every export. Rejected spans are handed to `onRejected`
 * and the response is reported as empty, so that weft alone decides how loudly to log them.
 */
export function readExportResponse(data: Uint8Array, onRejected: RejectedSpansListener): IExportTraceServiceResponse {
  let rejected = 0;
  let message = '';
  try {
    const text = Buffer.from(data).toString('utf8').trim();
    if (text === '') return {};
    if (text.startsWith('{')) {
      const body = JSON.parse(text) as Record<string, unknown> | null;
      const partial = (body?.partial_success ?? body?.partialSuccess) as Record<string, unknown> | null | undefined;
      rejected = Number(partial?.rejected_spans ?? partial?.rejectedSpans ?? 0);
      message = String(partial?.error_message ?? partial?.errorMessage ?? '');
    } else {
      const partial = ProtobufTraceSerializer.deserializeResponse(data).partialSuccess;
      rejected = Number(partial?.rejectedSpans ?? 0);
      message = partial?.errorMessage ?? '';
    }
  } catch (error) {
    // The spans were accepted (2xx); only the answer is unreadable. Said once, not at every export.
    reportOnce('export-response', `the trace service accepted spans but its answer could not be read (${(error as Error)?.message ?? error}).`);
    return {};
  }
  if (rejected > 0) onRejected(rejected, message);
  return {};
}

/**
 * OTel's OTLP/HTTP protobuf span exporter (the same delegate as `@opentelemetry/exporter-trace-otlp-proto`), with
 * weft's encoder (the same bytes as OTel's serializer, see {@link encodeTraceExport}), a response reader that
 * understands the trace service's JSON answers, and weft's own transport (see {@link createOtlpTransport}).
 */
export function createOtlpExporter(config: OtlpExporterConfig, onRejected: RejectedSpansListener): OtlpExporter {
  const serializer: ISerializer<ReadableSpan[], IExportTraceServiceResponse> = {
    // The same bytes as OTel's ProtobufTraceSerializer, several times faster for spans with message content.
    serializeRequest: (spans) => encodeTraceExport(spans),
    deserializeResponse: (data) => readExportResponse(data, onRejected),
  };
  // Built from weft's own settings alone, on purpose not with OTel's env-reading helper: the generic
  // `OTEL_EXPORTER_OTLP_*` variables (headers, endpoint, client certificates) configure the app's OTLP exporter
  // for another backend, and often carry that vendor's credentials. weft exports to its own service, so it must
  // not send them there. `OTEL_EXPORTER_OTLP_TRACES_HEADERS` is just as generic and is not read either: extra
  // headers for weft's service go in the `headers` option, where the user clearly means weft.
  const headers: Record<string, string> = {};
  // As OTel's own merge does: a header given as `undefined` (a plain-JS app's unset variable) is left out.
  for (const [name, value] of Object.entries(config.headers)) if (value !== undefined) headers[name] = String(value);
  headers['Content-Type'] = 'application/x-protobuf';
  const transport = createOtlpTransport({ url: config.url, headers, gzip: config.gzip, userAgent: config.userAgent, mayRetry: config.mayRetry });
  const shared = {
    timeoutMillis: config.timeoutMillis,
    concurrencyLimit: 30,
    compression: config.gzip ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE,
  };
  const metrics = createOtlpHttpExporterMetrics('otlp_http_span_exporter', TraceExporterMetricsHelper, config.url, undefined);
  const exporter = new OTLPExporterBase(createOtlpNetworkExportDelegate(shared, serializer, metrics, transport));
  return Object.assign(exporter, {
    releaseConnections: () => transport.release(),
    closeConnections: () => {
      transport.release();
      transport.shutdown();
    },
  });
}
