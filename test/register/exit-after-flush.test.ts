import { afterEach, expect, it } from 'vitest';
import { countersAtExit, runNode } from '../helpers/child.js';
import { type OtlpReceiver, type ReceiverReply, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// The explicit flush fails (the first request is refused for a passing reason); no span ends after it.
let receiver: OtlpReceiver | undefined;
afterEach(() => receiver?.close());

async function run(first: ReceiverReply) {
  receiver = await startOtlpReceiver({ reply: (_, index) => (index === 0 ? first : { status: 200, body: '{}' }) });
  return runNode(['test/register/fixtures/flush-then-exit.mjs'], { WEFT_BASE_URL: receiver.url, WEFT_PROJECT: 'acme/exit-retry' });
}

it('gives spans kept for a retry after an explicit flush one last attempt at exit', async () => {
  const result = await run({ status: 503 });
  expect(result.code).toBe(0);
  expect(receiver!.spans().map((s) => s.name)).toEqual(['flushed-before-exit']);
  expect(countersAtExit(result.stdout)).toMatchObject({ spansExported: 1, spansDropped: 0 });
});

it('counts the spans the service asked to hold past the exit as dropped, and says how many', async () => {
  const result = await run({ status: 429, headers: { 'retry-after': '600' } });
  expect(result.code).toBe(0);
  expect(receiver!.spans()).toEqual([]);
  expect(result.stderr).toContain('1 span(s) waiting for a retry could not be sent');
  expect(countersAtExit(result.stdout)).toEqual({ spansEnded: 1, spansExported: 0, spansDropped: 1, droppedSpans: 1 });
});
