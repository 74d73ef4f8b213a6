import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { register, type WeftHandle } from 'weft';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// The generic OTLP variables configure the app's exporter for another backend, often with that vendor's key.
let receiver: OtlpReceiver;
let weft: WeftHandle;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  process.env.OTEL_EXPORTER_OTLP_HEADERS = 'x-other=secret-of-another-vendor';
  process.env.OTEL_EXPORTER_OTLP_TRACES_HEADERS = 'x-other-traces=traces-secret-of-another-vendor';
  weft = register({
    baseUrl: receiver.url,
    project: 'acme/headers',
    headers: { 'x-proxy-tag': 'blue' },
    instrumentations: [],
    flushOnExit: false,
  });
});
afterAll(async () => {
  delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
  delete process.env.OTEL_EXPORTER_OTLP_TRACES_HEADERS;
  await weft.shutdown();
  await receiver.close();
});

it("does not send another vendor's OTEL_EXPORTER_OTLP_HEADERS to the trace service, only its own headers", async () => {
  trace.getTracer('t').startSpan('one').end();
  await weft.forceFlush();

  expect(receiver.requests).toHaveLength(1);
  const { headers } = receiver.requests[0]!;
  expect(headers['x-other']).toBeUndefined();
  expect(headers['x-other-traces']).toBeUndefined();
  expect(JSON.stringify(headers)).not.toContain('secret-of-another-vendor');
  expect(headers['x-proxy-tag']).toBe('blue');
  expect(headers.project_id).toBe('acme/headers');
  expect(headers['content-type']).toBe('application/x-protobuf');
});
