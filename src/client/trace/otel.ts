import type { CallOptions } from '../core/types.js';
import { TraceResource } from './resource.js';
import type { OtelExportRes } from './types/otel.js';

/** OpenTelemetry ingestion. `client.trace.otel` (register() exports spans itself; this is for raw OTLP bytes.) */
export class Otel extends TraceResource {
  /**
   * Sends a serialized OTLP `ExportTraceServiceRequest` (protobuf), with the client's project in a `project_id`
   * header: the service routes spans by it, or by the `wandb.entity` / `wandb.project` resource attributes
   * (reference trace-service.md §4), and bytes made elsewhere may carry neither. Not retried by default: a
   * repeated export would record its spans twice. POST /otel/v1/traces
   */
  async export(protobuf: Uint8Array, options: CallOptions = {}): Promise<OtelExportRes> {
    const headers = { 'content-type': 'application/x-protobuf', project_id: this.projectId, ...options.headers };
    return this.json('POST', '/otel/v1/traces', { body: protobuf, retry: 'once' }, { ...options, headers });
  }
}
