import { trace } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { register, type WeftHandle } from 'weft';
import { type OtlpReceiver, spanNamed, startOtlpReceiver } from '../helpers/otlp-receiver.js';

const KEY = 'sk-weft-test-9f8e7d6c5b4a';

describe('register() exports spans as OTLP protobuf to the trace service', () => {
  let receiver: OtlpReceiver;
  let weft: WeftHandle;

  beforeEach(async () => {
    receiver = await startOtlpReceiver();
    process.env.OTEL_RESOURCE_ATTRIBUTES = 'deployment.environment=test,team=evals';
    weft = register({
      baseUrl: receiver.url,
      project: 'acme/support-bot',
      apiKey: KEY,
      serviceName: 'checkout',
      headers: { 'x-proxy-tag': 'blue' },
      instrumentations: [],
    });
  });

  afterEach(async () => {
    delete process.env.OTEL_RESOURCE_ATTRIBUTES;
    await weft.shutdown();
    await receiver.close();
  });

  it('posts protobuf to {baseUrl}/otel/v1/traces with bearer auth and project routing', async () => {
    trace.getTracer('t').startSpan('one').end();
    await weft.forceFlush();

    expect(receiver.requests).toHaveLength(1);
    const request = receiver.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/otel/v1/traces');
    expect(request.headers['content-type']).toBe('application/x-protobuf');
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.headers.project_id).toBe('acme/support-bot');
    expect(request.headers['x-proxy-tag']).toBe('blue');
    expect(request.headers['user-agent']).toMatch(/^weft\//);
  });

  it('puts the project, service name and OTEL_RESOURCE_ATTRIBUTES on the resource, and never the key', async () => {
    trace.getTracer('t').startSpan('one').end();
    await weft.forceFlush();

    const span = spanNamed(receiver.spans(), 'one');
    expect(span.resource).toMatchObject({
      'wandb.entity': 'acme',
      'wandb.project': 'support-bot',
      'service.name': 'checkout',
      'deployment.environment': 'test',
      team: 'evals',
    });
    expect(receiver.requests[0]!.body.includes(KEY)).toBe(false);
  });

  it('keeps parent and child linked, with their attributes', async () => {
    const tracer = trace.getTracer('t');
    tracer.startActiveSpan('parent', (parent) => {
      tracer.startSpan('child', { attributes: { 'gen_ai.request.model': 'm-1', n: 3 } }).end();
      parent.end();
    });
    await weft.forceFlush();

    const spans = receiver.spans();
    const parent = spanNamed(spans, 'parent');
    const child = spanNamed(spans, 'child');
    expect(child.traceId).toBe(parent.traceId);
    expect(child.parentSpanId).toBe(parent.spanId);
    expect(parent.parentSpanId).toBeUndefined();
    expect(child.attributes).toEqual({ 'gen_ai.request.model': 'm-1', n: 3 });
  });

  it('returns the same handle from a second register() and adds no second exporter', async () => {
    const again = register({ baseUrl: 'http://127.0.0.1:9', instrumentations: [] });
    expect(again).toBe(weft);

    trace.getTracer('t').startSpan('once').end();
    await weft.forceFlush();
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.spans().filter((s) => s.name === 'once')).toHaveLength(1);
  });

  it('counts what it exported on the handle', async () => {
    for (let i = 0; i < 5; i++) trace.getTracer('t').startSpan(`s${i}`).end();
    await weft.forceFlush();
    expect(weft.stats).toMatchObject({ spansEnded: 5, spansExported: 5, spansDropped: 0, spansQueued: 0 });
    expect(weft.droppedSpans).toBe(0);
  });
});

describe('register() with a self-managed base URL', () => {
  it('keeps the /traces path prefix', async () => {
    const receiver = await startOtlpReceiver();
    const weft = register({ baseUrl: `${receiver.url}/traces/`, project: 'acme/p', instrumentations: [] });
    trace.getTracer('t').startSpan('prefixed').end();
    await weft.shutdown();
    await receiver.close();
    expect(receiver.requests[0]?.path).toBe('/traces/otel/v1/traces');
  });
});

describe('register() with gzip compression', () => {
  it('sends a gzip body that decodes to the same spans', async () => {
    const receiver = await startOtlpReceiver();
    const weft = register({ baseUrl: receiver.url, project: 'acme/p', compression: 'gzip', instrumentations: [] });
    trace.getTracer('t').startSpan('zipped').end();
    await weft.shutdown();
    await receiver.close();
    expect(receiver.requests[0]?.headers['content-encoding']).toBe('gzip');
    expect(spanNamed(receiver.spans(), 'zipped').name).toBe('zipped');
  });
});

describe('register() without any configuration', () => {
  it('targets the local dev service and needs no key', async () => {
    const weft = register({ instrumentations: [], flushOnExit: false });
    expect(weft.endpoint).toBe('http://127.0.0.1:4780/otel/v1/traces');
    expect(weft.project).toBe('local/default');
    await weft.shutdown();
  });
});
