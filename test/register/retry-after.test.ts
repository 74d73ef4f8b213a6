import { trace } from '@opentelemetry/api';
import { afterEach, expect, it } from 'vitest';
import { register, type WeftHandle } from 'weft';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

let receiver: OtlpReceiver | undefined;
let weft: WeftHandle | undefined;
afterEach(async () => {
  await weft?.shutdown();
  await receiver?.close();
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

it('holds the spans for as long as a 429 Retry-After asks, even past the export timeout, then sends them', async () => {
  const retryAfterSeconds = 2;
  receiver = await startOtlpReceiver({
    reply: (_req, index) => (index === 0 ? { status: 429, headers: { 'retry-after': String(retryAfterSeconds) } } : { status: 200 }),
  });
  const handle = register({
    baseUrl: receiver.url,
    project: 'acme/throttled',
    instrumentations: [],
    flushOnExit: false,
    batch: { exportTimeoutMillis: 500 },
  });
  weft = handle;
  trace.getTracer('t').startSpan('throttled').end();
  await handle.forceFlush();
  const refusedAt = Date.now();
  expect(receiver.requests).toHaveLength(1);

  // A flush while the service asked to wait sends nothing, and loses nothing.
  await handle.forceFlush();
  expect(receiver.requests).toHaveLength(1);
  expect(handle.stats).toMatchObject({ spansExported: 0, spansDropped: 0 });

  await waitUntil(() => Date.now() - refusedAt > retryAfterSeconds * 1000);
  await handle.forceFlush();
  expect(receiver.spans().map((s) => s.name)).toEqual(['throttled']);
  expect(handle.stats).toMatchObject({ spansExported: 1, spansDropped: 0 });
});
