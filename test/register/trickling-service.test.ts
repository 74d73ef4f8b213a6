import { trace } from '@opentelemetry/api';
import { afterEach, expect, it } from 'vitest';
import { register, type WeftHandle } from 'weft';
import { type RunningChild, startNode } from '../helpers/child.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// The service answers 200 and its headers at once, then trickles the body past the export's time limit.
let service: OtlpReceiver | undefined;
let weft: WeftHandle | undefined;
let app: RunningChild | undefined;
afterEach(async () => {
  app?.child.kill('SIGKILL');
  await weft?.shutdown();
  await service?.close();
  app = weft = service = undefined;
});

it('counts spans as exported, and never sends them again, once the service answered 2xx but not the whole body', async () => {
  service = await startOtlpReceiver({ reply: () => 'trickle' });
  const handle = register({
    baseUrl: service.url,
    project: 'acme/trickle',
    instrumentations: [],
    flushOnExit: false,
    batch: { exportTimeoutMillis: 300 },
  });
  weft = handle;
  for (const name of ['a', 'b', 'c']) trace.getTracer('t').startSpan(name).end();
  await handle.forceFlush();
  // Shutdown gives anything kept for a retry its last attempt: a batch taken for failed would go out again here.
  await handle.shutdown();

  expect(service.spans().map((s) => s.name).sort()).toEqual(['a', 'b', 'c']);
  expect(handle.droppedSpans).toBe(0);
  expect(handle.stats).toMatchObject({ spansEnded: 3, spansExported: 3, spansDropped: 0 });
});

it('ends the process after shutdown() on a service that trickles its answer', async () => {
  service = await startOtlpReceiver({ reply: () => 'trickle' });
  app = startNode(['test/register/fixtures/shutdown-stats.mjs'], {
    WEFT_BASE_URL: service.url,
    WEFT_PROJECT: 'acme/trickle',
    FIXTURE_EXPORT_TIMEOUT: '300',
  });
  let stdout = '';
  app.child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  await app.waitForOutput('stats');
  const stats = JSON.parse(/stats (.*)/.exec(stdout)![1]!);
  expect(stats).toEqual({ spansEnded: 1, spansExported: 1, spansDropped: 0 });
  expect(service.spans().map((s) => s.name)).toEqual(['before-shutdown']);
  // The trickling socket was destroyed: nothing of weft's is left to hold the event loop.
  expect((await app.exited).code).toBe(0);
});
