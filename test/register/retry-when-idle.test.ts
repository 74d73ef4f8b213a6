import { trace } from '@opentelemetry/api';
import { afterEach, expect, it } from 'vitest';
import { register, type WeftHandle } from 'weft';
import { settlesWithin } from '../helpers/deadline.js';
import { type OtlpReceiver, type ReceiverReply, startOtlpReceiver } from '../helpers/otlp-receiver.js';

let receiver: OtlpReceiver | undefined;
let weft: WeftHandle | undefined;
afterEach(async () => {
  await weft?.shutdown();
  await receiver?.close();
  weft = receiver = undefined;
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * An app that ends two spans, sees their export fail, and then goes quiet: no more spans, no flush. The batch
 * processor has nothing to export, so only weft itself can send the spans it kept once the service is back.
 */
async function quietAfterAFailure(firstReply: ReceiverReply): Promise<WeftHandle> {
  receiver = await startOtlpReceiver({ reply: (_request, index) => (index === 0 ? firstReply : { status: 200 }) });
  weft = register({
    baseUrl: receiver.url,
    project: 'acme/quiet',
    instrumentations: [],
    flushOnExit: false,
    batch: { scheduledDelayMillis: 50, exportTimeoutMillis: 500 },
    logger: false,
  });
  for (const name of ['a', 'b']) trace.getTracer('app').startSpan(name).end();
  const handle = weft;
  await settlesWithin(until(() => handle.stats.exportFailures > 0), 'the first, failing export');
  return handle;
}

it('sends the spans kept after a 503 once the service is back, though the app ends no more spans and never flushes', async () => {
  const handle = await quietAfterAFailure({ status: 503 });
  await settlesWithin(until(() => handle.stats.spansExported === 2), 'the retry of the kept spans', 15);
  expect(receiver!.spans().map((span) => span.name).sort()).toEqual(['a', 'b']);
  expect(handle.stats).toMatchObject({ spansEnded: 2, spansExported: 2, spansDropped: 0 });
});

it('sends the spans of a request the service never answered, once it answers again, with the app quiet', async () => {
  const handle = await quietAfterAFailure('hang');
  await settlesWithin(until(() => handle.stats.spansExported === 2), 'the retry of the spans of the unanswered request', 15);
  expect(receiver!.spans().map((span) => span.name).sort()).toEqual(['a', 'b']);
  expect(handle.stats).toMatchObject({ spansEnded: 2, spansExported: 2, spansDropped: 0 });
});

// The pause after a failure is measured on a clock that never steps: a wall clock set back (NTP, a VM resumed) held
// every export back for as long as the step, an hour here, and the spans beyond the backlog's bound were dropped.
it('sends the kept spans as the pause ends though the wall clock stepped back an hour meanwhile', async () => {
  const wallClock = Date.now;
  try {
    const handle = await quietAfterAFailure({ status: 503 });
    const stepped = wallClock() - 3_600_000;
    const since = performance.now();
    Date.now = () => stepped + (performance.now() - since);
    trace.getTracer('app').startSpan('c').end();
    await settlesWithin(until(() => handle.stats.spansExported === 3), 'the retry of the kept spans', 15);
    expect(receiver!.spans().map((span) => span.name).sort()).toEqual(['a', 'b', 'c']);
  } finally {
    Date.now = wallClock;
  }
});
