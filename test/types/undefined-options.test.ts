/**
 * The runtime side of consumer-options.ts: the types let an app pass `undefined` for an optional option, so weft
 * must take it as "not given" (the default applies), never as a value that replaces the default.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client, op, weftSpanProcessor, withContext, withSpan } from 'weft';
import { type DevService, startDevService } from 'weft/dev';
import { named, startHarness, type TracingHarness } from '../tracing/harness.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function dev(): Promise<DevService> {
  const service = await startDevService({
    port: 0,
    log: false,
    host: undefined,
    apiKey: undefined,
    dataFile: undefined,
    maxTraces: undefined,
    maxRecords: undefined,
    trainingStepMs: undefined,
    maxBodyBytes: undefined,
  });
  open.push(service);
  return service;
}

describe('an option set to undefined is not given', () => {
  it('startDevService() and new Client() fall back to their defaults', async () => {
    const service = await dev();
    expect(service.host).toBe('127.0.0.1');
    const client = new Client({
      baseUrl: service.url,
      project: 'team/proj',
      inferenceBaseUrl: undefined,
      trainingBaseUrl: undefined,
      timeoutMs: undefined,
      maxRetries: undefined,
      backoff: { initialDelayMs: undefined, maxDelayMs: undefined },
      headers: undefined,
      inferenceProjectHeader: undefined,
      onRetry: undefined,
      tracing: undefined,
    });
    open.push(client);
    expect(client.baseUrls).toEqual({ trace: service.url, inference: service.v1Url, training: service.trainingUrl });
    const options = { signal: undefined, timeoutMs: undefined, maxRetries: undefined, idempotent: undefined, headers: undefined };
    expect(await client.inference.models.list(options)).toMatchObject({ object: 'list' });
  });

  it('weftSpanProcessor() takes the connection from the environment and weft’s batch defaults', async () => {
    const previous = process.env.WEFT_PROJECT;
    process.env.WEFT_PROJECT = 'env-team/env-project';
    try {
      const processor = weftSpanProcessor({
        apiKey: undefined,
        project: undefined,
        baseUrl: undefined,
        headers: undefined,
        compression: undefined,
        exitFlushTimeoutMillis: undefined,
        batch: { maxQueueSize: undefined, maxExportBatchSize: undefined, scheduledDelayMillis: undefined, exportTimeoutMillis: undefined },
      });
      open.push({ close: () => processor.shutdown() });
      expect(processor.project).toBe('env-team/env-project');
      expect(processor.endpoint).toMatch(/\/otel\/v1\/traces$/);
    } finally {
      if (previous === undefined) delete process.env.WEFT_PROJECT;
      else process.env.WEFT_PROJECT = previous;
    }
  });

  it('trace requests leave undefined fields out (the project is still filled in)', async () => {
    const service = await dev();
    const client = new Client({ baseUrl: service.url, project: 'team/proj', maxRetries: 0 });
    open.push(client);
    const started = await client.trace.calls.start({
      start: {
        project_id: undefined,
        op_name: 'undefined-fields',
        started_at: new Date().toISOString(),
        attributes: {},
        inputs: {},
        id: undefined,
        trace_id: undefined,
        parent_id: undefined,
        thread_id: undefined,
        display_name: undefined,
      },
    });
    expect(started.id).toEqual(expect.any(String));
    const calls = await client.trace.calls
      .streamQuery({ project_id: undefined, filter: { op_names: ['undefined-fields'], trace_ids: undefined }, limit: undefined })
      .collect();
    expect(calls.map((call) => [call.id, call.project_id, call.parent_id ?? null])).toEqual([[started.id, 'team/proj', null]]);
  });

  it('op(), withSpan() and an inner withContext() keep the name, the defaults and the outer values', async () => {
    const h: TracingHarness = await startHarness();
    open.push(h);
    const unset = { name: undefined, displayName: undefined, kind: undefined, attributes: undefined, maxYields: undefined };
    const answer = op(async function answer(question: string) {
      return `${question}!`;
    }, { ...unset, captureContent: undefined, redactContent: undefined, maxAttributeLength: undefined });
    const spans = await h.capture(() =>
      withContext({ threadId: 'thread-1', userId: 'user-1' }, () =>
        withContext({ threadId: undefined, userId: undefined, sessionId: undefined, turn: undefined, baggage: undefined }, () =>
          withSpan('block', () => answer('hi'), { inputs: undefined, kind: undefined }),
        ),
      ),
    );
    const span = named(spans, 'answer');
    expect(span.attributes).toMatchObject({ 'wandb.thread_id': 'thread-1', 'user.id': 'user-1', output: 'hi!' });
    expect(span.attributes).not.toHaveProperty('weave.span.kind');
    expect(named(spans, 'block').attributes['wandb.is_turn']).toBe(true);
  });
});
