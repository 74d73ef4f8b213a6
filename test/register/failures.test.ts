import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { register } from 'weft';
import { deadOrigin } from '../helpers/dead-origin.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { encodeTraceExportResponse } from '../../src/otlp/index.js';

/** weft registered to export to `baseUrl` only (no instrumentation, no exit hooks), with `options` on top. */
function registerTo(baseUrl: string, options: Parameters<typeof register>[0] = {}) {
  return register({ baseUrl, project: 'acme/p', instrumentations: [], flushOnExit: false, ...options });
}

function endSpans(count: number, prefix = 's'): void {
  const tracer = trace.getTracer('t');
  for (let i = 0; i < count; i++) tracer.startSpan(`${prefix}${i}`).end();
}

describe('register() when the trace service misbehaves', () => {
  it('sends spans again after 500s, once the service answers 200', async () => {
    const receiver = await startOtlpReceiver({ reply: (_, i) => (i === 0 ? { status: 500, body: '{"detail":"boom"}' } : { status: 200 }) });
    const weft = registerTo(receiver.url);

    endSpans(3, 'first');
    await weft.forceFlush();
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.spans()).toHaveLength(0);

    endSpans(1, 'second');
    await weft.forceFlush();
    await weft.shutdown();
    await receiver.close();

    expect(receiver.spans().map((s) => s.name).sort()).toEqual(['first0', 'first1', 'first2', 'second0']);
    expect(weft.stats).toMatchObject({ spansExported: 4, spansDropped: 0, exportFailures: 1 });
  });

  it('neither throws nor rejects when nothing listens, and counts the spans it could not send', async () => {
    const weft = registerTo(await deadOrigin(), {
      batch: { exportTimeoutMillis: 500 },
    });

    endSpans(4);
    await expect(weft.forceFlush()).resolves.toBeUndefined();
    await expect(weft.shutdown()).resolves.toBeUndefined();
    expect(weft.stats.spansExported).toBe(0);
    expect(weft.droppedSpans).toBe(4);
  });

  it('drops and counts spans beyond the queue bound while the service hangs, and says which option takes more', async () => {
    const receiver = await startOtlpReceiver({ reply: () => 'hang' });
    const logger = recordingLogger();
    const weft = registerTo(receiver.url, {
      logger,
      batch: { maxQueueSize: 10, maxExportBatchSize: 10, scheduledDelayMillis: 60_000, exportTimeoutMillis: 200, maxRetrySpans: 5 },
    });

    // The first full batch goes to the hanging request at once; ten more wait; the last five find no room.
    endSpans(25);
    expect(weft.stats.spansQueued).toBe(10);
    expect(weft.droppedSpans).toBe(5);
    // A burst fills the queue as a slow service does: the warning names both, and the option.
    expect(logger.lines.join('\n')).toContain('spans end faster than they can be sent (a burst, or a trace service that is slow or unreachable)');
    expect(logger.lines.join('\n')).toContain('`batch.maxQueueSize` (env OTEL_BSP_MAX_QUEUE_SIZE)');

    await weft.shutdown();
    await receiver.close();
    expect(weft.stats.spansExported).toBe(0);
    expect(weft.droppedSpans).toBe(25);
  });

  it('drops a batch the service refuses for good (401) without retrying it', async () => {
    const receiver = await startOtlpReceiver({ reply: () => ({ status: 401, body: '{"detail":"bad key"}' }) });
    const weft = registerTo(receiver.url, { apiKey: 'sk-refused' });

    endSpans(2);
    await weft.forceFlush();
    await weft.shutdown();
    await receiver.close();
    expect(receiver.requests).toHaveLength(1);
    expect(weft.droppedSpans).toBe(2);
  });
});

describe('register() when the service refuses some spans of a request', () => {
  it('counts the spans of a JSON partial_success answer as dropped, and only the others as exported', async () => {
    const receiver = await startOtlpReceiver({
      reply: () => ({ status: 200, body: '{"partial_success":{"rejected_spans":2,"error_message":"conflicting attribute paths"}}' }),
    });
    const weft = registerTo(receiver.url);
    endSpans(3);
    await weft.shutdown();
    await receiver.close();
    expect(weft.droppedSpans).toBe(2);
    expect(weft.stats).toMatchObject({ spansEnded: 3, spansExported: 1, spansDropped: 2 });
  });

  it('reads a protobuf partial_success answer too, as an OpenTelemetry collector sends it', async () => {
    const receiver = await startOtlpReceiver({
      reply: () => ({
        status: 200,
        headers: { 'content-type': 'application/x-protobuf' },
        body: encodeTraceExportResponse(1, 'span too large'),
      }),
    });
    const weft = registerTo(receiver.url);
    endSpans(3);
    await weft.shutdown();
    await receiver.close();
    expect(weft.stats).toMatchObject({ spansEnded: 3, spansExported: 2, spansDropped: 1 });
  });
});

describe('register() says what went wrong, once of each kind', () => {
  it('reports an answer of 500 and one of 429 each, and the spans the retry bound let go', async () => {
    const receiver = await startOtlpReceiver({ reply: (_, i) => ({ status: i === 0 ? 500 : 429 }) });
    const logger = recordingLogger();
    const weft = registerTo(receiver.url, {
      logger,
      batch: { maxExportBatchSize: 10, maxRetrySpans: 6, scheduledDelayMillis: 60_000, exportTimeoutMillis: 300 },
    });
    endSpans(10);
    await waitUntil(() => weft.stats.exportFailures === 1);
    await weft.forceFlush();
    expect(weft.stats.exportFailures).toBe(2);
    const log = logger.lines.join('\n');
    expect(log).toContain('(HTTP 500)');
    expect(log).toContain('(HTTP 429)');
    // Ten failed, six could wait: four dropped, and said so, naming the option.
    expect(weft.stats.spansDropped).toBe(4);
    expect(log).toContain('`batch.maxRetrySpans` keeps more');
    await weft.shutdown();
    await receiver.close();
  });
});

describe('register() on an event loop held for seconds', () => {
  it("answers the batch processor before its own timeout, so that OTel logs no 'Timeout' of its own", async () => {
    const receiver = await startOtlpReceiver({ reply: () => 'hang' });
    const logger = recordingLogger();
    const weft = registerTo(receiver.url, {
      logger,
      compression: 'gzip',
      batch: { maxExportBatchSize: 5, scheduledDelayMillis: 60_000, exportTimeoutMillis: 200 },
    });
    // A full batch goes at once; the app then holds the event loop before the request's gzip is back, past the
    // request's timeout and the batch processor's, a second later.
    endSpans(5);
    const until = performance.now() + 1500;
    while (performance.now() < until);
    await waitUntil(() => weft.stats.exportFailures === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logger.lines.filter((line) => line.includes('Timeout'))).toEqual([]);
    expect(weft.stats).toMatchObject({ spansEnded: 5, spansDropped: 0 });
    await weft.shutdown();
    await receiver.close();
  });
});

describe('register() when the trace service comes back during a long pause', () => {
  it('tries it as soon as the kept spans would overflow, instead of dropping every span until the pause ends', async () => {
    // Three failures (a batch, then two flushes retrying it) pause exports for 4 s; the service is back after them.
    let up = false;
    const receiver = await startOtlpReceiver({ reply: () => ({ status: up ? 200 : 503 }) });
    const weft = registerTo(receiver.url, {
      // Full batches of five go at once; nothing waits for the batch delay.
      batch: { maxExportBatchSize: 5, maxRetrySpans: 10, scheduledDelayMillis: 60_000, exportTimeoutMillis: 300 },
    });
    endSpans(5, 'a');
    await waitUntil(() => weft.stats.exportFailures === 1);
    await weft.forceFlush();
    await weft.forceFlush();
    expect(weft.stats.exportFailures).toBe(3);
    up = true;
    // A probe waits a second after the last failure; the pause runs two seconds more.
    await new Promise((resolve) => setTimeout(resolve, 1100));

    endSpans(5, 'b');
    endSpans(5, 'c');
    await waitUntil(() => weft.stats.spansExported + weft.stats.spansDropped === 15);
    expect(weft.stats).toMatchObject({ spansExported: 15, spansDropped: 0 });
    expect(receiver.spans().map((s) => s.name).sort()).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'b0', 'b1', 'b2', 'b3', 'b4', 'c0', 'c1', 'c2', 'c3', 'c4']);
    await weft.shutdown();
    await receiver.close();
  });
});

describe('register() once the trace service has failed', () => {
  it('makes one attempt per request until it answers again, so no export holds the batch processor retry after retry', async () => {
    // A 500 (which the transport does not retry) pauses exports for a second; after it, 503s (which it would).
    const receiver = await startOtlpReceiver({ reply: (_, i) => ({ status: i === 0 ? 500 : 503 }) });
    const weft = registerTo(receiver.url, { batch: { maxExportBatchSize: 5, scheduledDelayMillis: 60_000 } });
    endSpans(5, 'a');
    await waitUntil(() => weft.stats.exportFailures === 1);
    // As the pause ends, the kept spans are tried again: one request, answered 503, not retried within it.
    await waitUntil(() => weft.stats.exportFailures === 2);
    expect(receiver.requests).toHaveLength(2);
    await weft.shutdown();
    await receiver.close();
  });
});

describe('register() while the trace service stays down', () => {
  it('pauses exports after a failure instead of sending every batch to a dead service', async () => {
    const receiver = await startOtlpReceiver({ reply: () => ({ status: 503 }) });
    const weft = registerTo(receiver.url, {
      // A full batch of two is sent at once, without waiting for the batch delay.
      batch: { maxExportBatchSize: 2, exportTimeoutMillis: 300, maxRetrySpans: 100 },
    });

    endSpans(2, 'a');
    await waitUntil(() => weft.stats.exportFailures === 1);
    const requestsAfterFailure = receiver.requests.length;
    endSpans(6, 'b');
    await waitUntil(() => weft.stats.spansQueued === 0);

    expect(receiver.requests.length).toBe(requestsAfterFailure);
    expect(weft.stats).toMatchObject({ spansQueued: 0, spansDropped: 0, exportFailures: 1 });
    await weft.shutdown();
    await receiver.close();
    expect(weft.droppedSpans).toBe(8);
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('a request error that retrying cannot cure', () => {
  it('drops and counts the spans at once when TLS fails (https to a plain HTTP service), instead of retrying forever', async () => {
    const plain = await startOtlpReceiver();
    const logger = { lines: [] as string[] };
    const keep = (...args: unknown[]) => {
      logger.lines.push(args.map(String).join(' '));
    };
    const weft = registerTo(plain.url.replace('http:', 'https:'), {
      project: 'acme/tls',
      logger: { error: keep, warn: keep, info: keep, debug: keep, verbose: keep },
      batch: { exportTimeoutMillis: 500 },
    });
    try {
      trace.getTracer('t').startSpan('over-tls').end();
      await weft.forceFlush();
      expect(weft.stats).toMatchObject({ spansEnded: 1, spansExported: 0, spansDropped: 1 });
      expect(logger.lines.join('\n')).toContain('sending again would fail the same way');
    } finally {
      await weft.shutdown();
      await plain.close();
    }
  });
});

describe('an answer that breaks off after the service accepted the spans', () => {
  it('counts the spans as exported and does not send them again', async () => {
    const { createServer } = await import('node:http');
    let requests = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        requests += 1;
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"partial', () => res.socket?.destroy());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const weft = registerTo(`http://127.0.0.1:${port}`, {
      project: 'acme/broken-answer',
      batch: { exportTimeoutMillis: 500 },
    });
    try {
      endSpans(1, 'accepted');
      await weft.forceFlush();
      await weft.shutdown();
      expect(weft.stats).toMatchObject({ spansEnded: 1, spansExported: 1, spansDropped: 0, exportFailures: 0 });
      expect(requests).toBe(1);
    } finally {
      await weft.shutdown();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
