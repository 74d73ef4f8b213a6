import type { Attributes } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

/** One span of an export: its name and attributes. */
export interface SpanSpec {
  name: string;
  attributes?: Attributes;
}

/** The resource attributes that route spans to `team/proj`, as weft's exporter sets them. */
export const ROUTED = { 'wandb.entity': 'team', 'wandb.project': 'proj' } as const;

/**
 * An OTLP/protobuf export body as a plain OpenTelemetry app (not weft) would send it: spans from OTel's own SDK,
 * serialized by OTel's own serializer, under a resource with exactly `resource` (no project routing by default).
 */
export function otlpExport(spans: SpanSpec[], resource: Attributes = {}): { bytes: Uint8Array; spanIds: string[] } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes(resource), spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('otlp-bytes');
  const spanIds = spans.map((spec) => {
    const span = tracer.startSpan(spec.name, { attributes: spec.attributes ?? {} });
    span.end();
    return span.spanContext().spanId;
  });
  const bytes = ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans());
  if (!bytes) throw new Error('OTel serialized no bytes');
  return { bytes, spanIds };
}
