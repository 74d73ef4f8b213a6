import type { Instrumentation } from '@opentelemetry/instrumentation';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

// TEMPORARY until instrumentation/ and tracing/ export their defaults.
export function defaultInstrumentations(): Instrumentation[] {
  return [];
}
export function contextSpanProcessors(): SpanProcessor[] {
  return [];
}
