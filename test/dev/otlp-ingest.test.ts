import { context, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, type WeftHandle } from 'weft';
import { type DevService, startDevService } from 'weft/dev';
import { type Json, opNameOf, streamQuery } from './support.js';

// One registration per process (register() is a singleton); every test reads its own trace back.
let dev: DevService;
let weft: WeftHandle;
let tracer: Tracer;

beforeAll(async () => {
  dev = await startDevService({ port: 0, log: false });
  weft = register({ baseUrl: dev.url, project: 'team/otel', global: false, instrumentations: [], flushOnExit: false, logger: false });
  tracer = weft.tracerProvider.getTracer('otlp-ingest-test');
});

afterAll(async () => {
  await weft.shutdown();
  await dev.close();
});

/** Ends one span with these attributes, flushes, and returns its call. */
async function callFor(name: string, attributes: Record<string, Json>, status?: { code: SpanStatusCode; message?: string }) {
  const span = tracer.startSpan(name, { attributes });
  if (status) span.setStatus(status);
  span.end();
  await weft.forceFlush();
  const { traceId, spanId } = span.spanContext();
  const calls = await streamQuery(dev.url, { project_id: 'team/otel', filter: { call_ids: [spanId] } });
  expect(calls).toHaveLength(1);
  expect(calls[0].trace_id).toBe(traceId);
  return calls[0];
}

describe('weft dev: OTLP spans become calls as on the real service', () => {
  it('keys inputs and output by their source attribute and parses JSON text', async () => {
    const call = await callFor('chat', {
      'input.value': JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
      'output.value': 'hello',
    });
    expect(call.inputs).toEqual({ 'input.value': { messages: [{ role: 'user', content: 'hi' }] } });
    expect(call.output).toEqual({ 'output.value': 'hello' });
    expect(opNameOf(call)).toBe('chat');
  });

  it('de-nests the inputs object and the output value', async () => {
    const call = await callFor('predict', { inputs: JSON.stringify({ question: 'q', k: 3 }), output: 'an answer' });
    expect(call.inputs).toEqual({ question: 'q', k: 3 });
    expect(call.output).toBe('an answer');
  });

  it('puts usage under the model name with the total, and model attributes in attributes', async () => {
    const call = await callFor('openai.chat', {
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'm/small',
      'gen_ai.response.model': 'm/small-2026',
      'gen_ai.request.temperature': 0.5,
      'gen_ai.usage.prompt_tokens': 7,
      'gen_ai.usage.completion_tokens': '5',
    });
    expect(call.summary.usage).toEqual({ 'm/small-2026': { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 } });
    expect(call.attributes).toEqual({
      system: 'openai',
      model: 'm/small-2026',
      model_parameters: { model: 'm/small', temperature: 0.5 },
    });
  });

  it('reads indexed gen_ai.prompt keys as a list of messages', async () => {
    const call = await callFor('llm', {
      'gen_ai.prompt.0.role': 'system',
      'gen_ai.prompt.0.content': 'be brief',
      'gen_ai.prompt.1.role': 'user',
      'gen_ai.prompt.1.content': 'hi',
    });
    expect(call.inputs).toEqual({
      'gen_ai.prompt': [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    });
  });

  it('merges wandb.attributes into attributes and sets display name, thread and turn', async () => {
    const call = await callFor('turn', {
      inputs: '{"q":1}',
      'wandb.attributes.tenant': 'acme',
      'wandb.attributes.tags': ['a', 'b'],
      'wandb.display_name': 'First turn',
      'wandb.thread_id': 'thread-1',
      'wandb.is_turn': true,
    });
    expect(call.attributes).toEqual({ tenant: 'acme', tags: ['a', 'b'] });
    expect(call.display_name).toBe('First turn');
    expect(call.thread_id).toBe('thread-1');
    expect(call.turn_id).toBe(call.id);
  });

  it('dumps every attribute into attributes when no known key matches', async () => {
    const call = await callFor('custom', { 'my.flag': true, count: 3 });
    expect(call.attributes).toEqual({ my: { flag: true }, count: 3 });
    expect(call.inputs).toEqual({});
    expect(call.output).toBeNull();
  });

  it('maps an ERROR status to an error call with the message as its exception', async () => {
    const call = await callFor('fails', { inputs: '{}' }, { code: SpanStatusCode.ERROR, message: 'it broke' });
    expect(call.exception).toBe('it broke');
    expect(call.summary.weave.status).toBe('error');
  });

  it('maps an OK status to success and records latency from the span times', async () => {
    const span = tracer.startSpan('timed', { startTime: [1_700_000_000, 0] });
    span.setStatus({ code: SpanStatusCode.OK });
    span.end([1_700_000_001, 250_000_000]);
    await weft.forceFlush();
    const [call] = await streamQuery(dev.url, { project_id: 'team/otel', filter: { call_ids: [span.spanContext().spanId] } });
    expect(call.summary.weave).toMatchObject({ status: 'success', latency_ms: 1250, trace_name: 'timed' });
    expect(call.started_at).toBe('2023-11-14T22:13:20.000000Z');
    expect(call.ended_at).toBe('2023-11-14T22:13:21.250000Z');
  });

  it('ignores a langfuse time no call can have and keeps the span\'s own times', async () => {
    const impossible = [1e14, -1e15, '99999999999999999999999999999'];
    const spans = impossible.map((value) =>
      tracer.startSpan('langfuse', { startTime: [1_700_000_000, 0], attributes: { 'langfuse.startTime': value, 'langfuse.endTime': value } }),
    );
    for (const span of spans) span.end([1_700_000_002, 0]);
    await weft.forceFlush();
    const calls = await streamQuery(dev.url, { project_id: 'team/otel', filter: { call_ids: spans.map((s) => s.spanContext().spanId) } });
    expect(calls.map((c) => [c.started_at, c.ended_at])).toEqual(
      impossible.map(() => ['2023-11-14T22:13:20.000000Z', '2023-11-14T22:13:22.000000Z']),
    );
  });

  it('links a child span to its parent by hex ids', async () => {
    const parent = tracer.startSpan('parent');
    const child = tracer.startSpan('child', {}, trace.setSpan(context.active(), parent));
    child.end();
    parent.end();
    await weft.forceFlush();
    const calls = await streamQuery(dev.url, { project_id: 'team/otel', filter: { trace_ids: [parent.spanContext().traceId] } });
    const byName = Object.fromEntries(calls.map((c) => [opNameOf(c), c]));
    expect(byName.child.parent_id).toBe(parent.spanContext().spanId);
    expect(byName.parent.parent_id).toBeNull();
    expect(byName.parent.id).toMatch(/^[0-9a-f]{16}$/);
    expect(byName.parent.trace_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('rejects a span whose attribute paths conflict and keeps the rest of the batch', async () => {
    const bad = tracer.startSpan('conflict', { attributes: { a: 1, 'a.b': 2 } });
    const good = tracer.startSpan('fine', { attributes: { inputs: '{"x":1}' } });
    bad.end();
    good.end();
    await weft.forceFlush();
    const ids = [bad.spanContext().spanId, good.spanContext().spanId];
    const calls = await streamQuery(dev.url, { project_id: 'team/otel', filter: { call_ids: ids } });
    expect(calls.map(opNameOf)).toEqual(['fine']);
  });

  it('keeps microseconds so that calls started within one millisecond stay in order', async () => {
    const parent = tracer.startSpan('within-ms');
    const ctx = trace.setSpan(context.active(), parent);
    const later = tracer.startSpan('second', { startTime: [1_700_000_000, 400_000] }, ctx);
    const earlier = tracer.startSpan('first', { startTime: [1_700_000_000, 100_000] }, ctx);
    later.end([1_700_000_000, 500_000]);
    earlier.end([1_700_000_000, 200_000]);
    parent.end();
    await weft.forceFlush();
    const children = await streamQuery(dev.url, { project_id: 'team/otel', filter: { parent_ids: [parent.spanContext().spanId] } });
    expect(children.map((c) => [opNameOf(c), c.started_at])).toEqual([
      ['first', '2023-11-14T22:13:20.000100Z'],
      ['second', '2023-11-14T22:13:20.000400Z'],
    ]);
  });
});
