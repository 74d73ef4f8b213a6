import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { register, type WeftHandle } from 'weft';
import { deadOrigin } from '../helpers/dead-origin.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// forceFlush() and shutdown() wait at most the flush timeout (exitFlushTimeoutMillis, 500 ms here), however long
// an export may take (60 s here) and whatever the service does.

const DEADLINE_MS = 5000;

/** Resolves as `work` does, or fails saying what did not finish, long after the flush timeout. */
async function within<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} had not finished ${DEADLINE_MS} ms later, past its 500 ms flush timeout`)), DEADLINE_MS);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function endSpan(name: string): void {
  trace.getTracer('t').startSpan(name).end();
}

function start(baseUrl: string): WeftHandle {
  return register({
    baseUrl,
    project: 'acme/flush-timeout',
    instrumentations: [],
    flushOnExit: false,
    logger: false,
    exitFlushTimeoutMillis: 500,
    batch: { scheduledDelayMillis: 60_000, exportTimeoutMillis: 60_000 },
  });
}

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe('a trace service that hangs', () => {
  it('holds forceFlush() no longer than the flush timeout; the span is kept for later', async () => {
    receiver = await startOtlpReceiver({ reply: () => 'hang' });
    const weft = start(receiver.url);
    endSpan('first');
    await within(weft.forceFlush(), 'forceFlush()');
    expect(receiver.requests).toHaveLength(1);
    expect(weft.stats).toMatchObject({ spansEnded: 1, spansExported: 0, spansDropped: 0 });
    await within(weft.shutdown(), 'shutdown()');
  });

  it('is not waited on again by the next forceFlush(), which keeps its span for later', async () => {
    receiver = await startOtlpReceiver({ reply: () => 'hang' });
    const weft = start(receiver.url);
    endSpan('first');
    await within(weft.forceFlush(), 'the first forceFlush()');
    endSpan('second');
    await within(weft.forceFlush(), 'the second forceFlush()');
    expect(receiver.requests).toHaveLength(1);
    expect(weft.stats).toMatchObject({ spansEnded: 2, spansDropped: 0 });
    await within(weft.shutdown(), 'shutdown()');
  });

  it('holds shutdown() no longer than the flush timeout, after a last attempt; what was not sent is dropped', async () => {
    receiver = await startOtlpReceiver({ reply: () => 'hang' });
    const weft = start(receiver.url);
    endSpan('first');
    await within(weft.forceFlush(), 'forceFlush()');
    endSpan('second');
    await within(weft.shutdown(), 'shutdown()');
    // The first request, given up on, and a last one with the span kept since.
    expect(receiver.requests.map((r) => r.spans.map((s) => s.name))).toEqual([['first'], ['second']]);
    expect(weft.stats).toMatchObject({ spansEnded: 2, spansExported: 0, spansDropped: 2 });
  });
});

describe('a trace service whose port refuses connections', () => {
  it('holds forceFlush() and shutdown() no longer than the flush timeout; shutdown counts the spans as dropped', async () => {
    const weft = start(await deadOrigin());
    endSpan('first');
    await within(weft.forceFlush(), 'forceFlush()');
    expect(weft.stats).toMatchObject({ spansEnded: 1, spansDropped: 0 });
    endSpan('second');
    await within(weft.shutdown(), 'shutdown()');
    expect(weft.stats).toMatchObject({ spansEnded: 2, spansExported: 0, spansDropped: 2 });
  });
});

describe('a trace service whose connections are cut', () => {
  it('gets one more attempt from shutdown(), at once, not the retries of an export after their pauses', async () => {
    // Accepts each connection and closes it at once (ECONNRESET), counting them: nobody serves there.
    let connections = 0;
    const cutter = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => cutter.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = cutter.address() as AddressInfo;
      const weft = register({
        baseUrl: `http://127.0.0.1:${port}`,
        project: 'acme/flush-timeout',
        instrumentations: [],
        flushOnExit: false,
        logger: false,
        batch: { scheduledDelayMillis: 60_000, exportTimeoutMillis: 60_000 },
      });
      endSpan('first');
      await within(weft.shutdown(), 'shutdown()');
      // The shutdown's flush, then the last attempt for the spans it kept: retried after 1 s and 1.5 s pauses, the
      // export would have held the shutdown for its whole flush timeout (3 s).
      expect(connections).toBe(2);
      expect(weft.stats).toMatchObject({ spansEnded: 1, spansExported: 0, spansDropped: 1 });
    } finally {
      await new Promise<void>((resolve) => cutter.close(() => resolve()));
    }
  });
});

describe('a trace service known to be down', () => {
  it('gets one attempt from a flush, not the retries of an export', async () => {
    // A quick failure every time, as a refused port: the first export retries it within the flush timeout.
    receiver = await startOtlpReceiver({ reply: () => ({ status: 503 }) });
    const weft = register({
      baseUrl: receiver.url,
      project: 'acme/flush-timeout',
      instrumentations: [],
      flushOnExit: false,
      logger: false,
      batch: { scheduledDelayMillis: 60_000, exportTimeoutMillis: 60_000 },
    });
    endSpan('first');
    await within(weft.forceFlush(), 'the first forceFlush()');
    // That flush may have timed out with an attempt still open, which it let go of: its failure, counted a moment
    // later, must come before the second flush, which would otherwise see the service fail during it and, by design,
    // not try it again (the spans then wait for the pause to end).
    await vi.waitFor(() => expect(weft.stats.exportFailures).toBe(1), { timeout: DEADLINE_MS });
    const attemptsOfTheFirst = receiver.requests.length;
    expect(attemptsOfTheFirst).toBeGreaterThan(1);
    endSpan('second');
    await within(weft.forceFlush(), 'the second forceFlush()');
    expect(receiver.requests.slice(attemptsOfTheFirst).map((r) => r.spans.map((s) => s.name).sort())).toEqual([['first', 'second']]);
    expect(weft.stats).toMatchObject({ spansEnded: 2, spansDropped: 0 });
    await within(weft.shutdown(), 'shutdown()');
  });
});
