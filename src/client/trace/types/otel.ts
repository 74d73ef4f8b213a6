/** POST /otel/v1/traces: how many spans the service rejected, and why (the first 20 reasons). */
export interface OtelExportRes {
  partial_success?: { rejected_spans: number; error_message: string } | null;
  [key: string]: unknown;
}
