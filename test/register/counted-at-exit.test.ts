import { afterEach, expect, it } from 'vitest';
import { countersAtExit, runNode } from '../helpers/child.js';
import { type OtlpReceiver, type ReceiverReply, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// When the process ends, every span that ended is either exported or counted as dropped, before the app's own
// `exit` listener reads the counters. These run the built package in child processes, as an app would.
let receiver: OtlpReceiver | undefined;
afterEach(() => receiver?.close());

async function run(reply: ReceiverReply, env: Record<string, string> = {}) {
  receiver = await startOtlpReceiver({ reply: () => reply });
  return runNode(['test/register/fixtures/end-unflushed.mjs'], { WEFT_BASE_URL: receiver.url, WEFT_PROJECT: 'acme/at-exit', ...env });
}

it('counts the spans of an export weft gave up on at exit as dropped', async () => {
  // A short flush timeout, so that weft gives up soon; the others leave weft its own: a last send on a busy machine
  // may need more than a short one to start its sender and read the answer, and would count a span it sent as dropped.
  const result = await run('hang', { FIXTURE_EXIT_FLUSH_MS: '200' });
  expect(result.code).toBe(0);
  expect(result.stderr).toContain('1 span(s) were not sent');
  expect(countersAtExit(result.stdout)).toEqual({ spansEnded: 1, spansExported: 0, spansDropped: 1, droppedSpans: 1 });
});

it('counts the spans still queued when the app calls process.exit() as exported, once the last send sent them', async () => {
  const result = await run({ status: 200 }, { FIXTURE_PROCESS_EXIT: '1' });
  expect(result.code).toBe(0);
  expect(receiver!.spans().map((s) => s.name)).toEqual(['unflushed']);
  expect(countersAtExit(result.stdout)).toEqual({ spansEnded: 1, spansExported: 1, spansDropped: 0, droppedSpans: 0 });
});

it('sends nothing at process.exit() with flushOnExit: false, which installs no exit hooks', async () => {
  const result = await run({ status: 200 }, { FIXTURE_PROCESS_EXIT: '1', FIXTURE_NO_EXIT_FLUSH: '1' });
  expect(result.code).toBe(0);
  expect(receiver!.requests).toEqual([]);
  expect(countersAtExit(result.stdout)).toEqual({ spansEnded: 1, spansExported: 0, spansDropped: 0, droppedSpans: 0 });
});

it('counts nothing as dropped when the exit flush sent everything', async () => {
  const result = await run({ status: 200 });
  expect(result.code).toBe(0);
  expect(receiver!.spans().map((s) => s.name)).toEqual(['unflushed']);
  expect(countersAtExit(result.stdout)).toEqual({ spansEnded: 1, spansExported: 1, spansDropped: 0, droppedSpans: 0 });
});
