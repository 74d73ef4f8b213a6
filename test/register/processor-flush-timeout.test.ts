import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { type WeftSpanProcessor, weftSpanProcessor } from 'weft';
import { configError } from '../helpers/config-error.js';
import { deadOrigin } from '../helpers/dead-origin.js';
import { settlesWithin } from '../helpers/deadline.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// weftSpanProcessor() in an app's own provider (NodeSDK's, here a BasicTracerProvider): its forceFlush() and
// shutdown() wait at most its flush timeout, as register()'s handle does, however long an export may take (60 s
// here) and whatever the service does. The provider's own forceFlush() and shutdown() are what NodeSDK calls.

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function appProvider(baseUrl: string, flushTimeout: { exitFlushTimeoutMillis?: number } = { exitFlushTimeoutMillis: 500 }) {
  const processor = weftSpanProcessor({
    baseUrl,
    project: 'acme/own-provider',
    ...flushTimeout,
    batch: { scheduledDelayMillis: 60_000, exportTimeoutMillis: 60_000 },
  });
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const endSpan = (name: string) => provider.getTracer('app').startSpan(name).end();
  return { processor, provider, endSpan };
}

describe('weftSpanProcessor() with a trace service that hangs', () => {
  it("holds the provider's forceFlush() no longer than its flush timeout; the span is kept for later", async () => {
    receiver = await startOtlpReceiver({ reply: () => 'hang' });
    const { processor, provider, endSpan } = appProvider(receiver.url);
    endSpan('first');
    await settlesWithin(provider.forceFlush(), 'forceFlush() (flush timeout 500 ms)');
    expect(receiver.requests).toHaveLength(1);
    expect(processor.stats).toMatchObject({ spansEnded: 1, spansExported: 0, spansDropped: 0 });
    await settlesWithin(provider.shutdown(), 'shutdown() (flush timeout 500 ms)');
  });

  it("holds the provider's shutdown() no longer than its flush timeout, with no flush first; the span is dropped", async () => {
    receiver = await startOtlpReceiver({ reply: () => 'hang' });
    const { processor, provider, endSpan } = appProvider(receiver.url);
    endSpan('first');
    await settlesWithin(provider.shutdown(), 'shutdown() (flush timeout 500 ms)');
    expect(processor.stats).toMatchObject({ spansEnded: 1, spansExported: 0, spansDropped: 1 });
  });

  it('is bounded by default (3 s), not by the export timeout', async () => {
    receiver = await startOtlpReceiver({ reply: () => 'hang' });
    const { processor, provider, endSpan } = appProvider(receiver.url, {});
    endSpan('first');
    await settlesWithin(provider.forceFlush(), 'forceFlush() (default flush timeout 3 s, export timeout 60 s)', 8);
    endSpan('second');
    await settlesWithin(provider.shutdown(), 'shutdown() (default flush timeout 3 s, export timeout 60 s)', 8);
    expect(processor.stats).toMatchObject({ spansEnded: 2, spansExported: 0, spansDropped: 2 });
  });
});

describe('weftSpanProcessor() with a trace service whose port refuses connections', () => {
  it('holds forceFlush() and shutdown() no longer than the flush timeout; shutdown counts the spans as dropped', async () => {
    const { processor, provider, endSpan } = appProvider(await deadOrigin());
    endSpan('first');
    await settlesWithin(provider.forceFlush(), 'forceFlush() (flush timeout 500 ms)');
    expect(processor.stats).toMatchObject({ spansEnded: 1, spansDropped: 0 });
    endSpan('second');
    await settlesWithin(provider.shutdown(), 'shutdown() (flush timeout 500 ms)');
    expect(processor.stats).toMatchObject({ spansEnded: 2, spansExported: 0, spansDropped: 2 });
  });
});

describe('weftSpanProcessor() with a trace service that answers', () => {
  it('exports on forceFlush(), and its shutdown() is idempotent', async () => {
    receiver = await startOtlpReceiver();
    const { processor, provider, endSpan } = appProvider(receiver.url);
    endSpan('first');
    await settlesWithin(provider.forceFlush(), 'forceFlush()');
    expect(receiver.spans().map((s) => s.name)).toEqual(['first']);
    await settlesWithin(Promise.all([processor.shutdown(), processor.shutdown()]), 'shutdown() twice');
    expect(processor.stats).toMatchObject({ spansEnded: 1, spansExported: 1, spansDropped: 0 });
  });
});

describe('weftSpanProcessor({ exitFlushTimeoutMillis })', () => {
  it.each([0, -1, 1.5, '3000'])('refuses %j, naming the option', (value) => {
    const error = configError(() => weftSpanProcessor({ exitFlushTimeoutMillis: value as number }));
    expect(error.option).toBe('exitFlushTimeoutMillis');
    expect(error.message).toContain('must be a positive integer');
  });

  it('is the same processor type as before', async () => {
    const processor: WeftSpanProcessor = weftSpanProcessor({ project: 'acme/own-provider', exitFlushTimeoutMillis: 1000 });
    expect(processor.project).toBe('acme/own-provider');
    await processor.shutdown();
  });
});
