import { type Span, type SpanContext, TraceFlags, trace } from '@opentelemetry/api';
import { BasicTracerProvider, ParentBasedSampler, SamplingDecision, type Sampler } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatCompletionChunk, type ChatCompletionRequest, traceChatCompletion } from 'weft';
import { StatusCodeValue } from '../../src/otlp/index.js';
import { type Harness, json, startHarness } from './harness.js';

/**
 * The caller-neutral path weft's own client uses: `invoke` returns a plain promise of a completion, or of an
 * async iterable of chunks parsed from SSE (no openai SDK involved).
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const tracer = () => h.handle.tracerProvider.getTracer('weft-client-test');
const REQUEST: ChatCompletionRequest = { model: 'weft-model', messages: [{ role: 'user', content: 'hi' }] };
const SERVER = 'https://inference.example.com:8443/v1';
const COMMON = {
  'gen_ai.operation.name': 'chat',
  'weave.span.kind': 'llm',
  'gen_ai.provider.name': 'openai',
  'openai.api.type': 'chat_completions',
  'gen_ai.request.model': 'weft-model',
  'server.address': 'inference.example.com',
  'server.port': 8443,
};
const COMPLETION = {
  id: 'cmpl-1',
  model: 'weft-model',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hello' } }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
};

function chunk(content: string | undefined, extra: Record<string, unknown> = {}): ChatCompletionChunk {
  return {
    id: 'cmpl-2',
    model: 'weft-model',
    choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: content === undefined ? 'stop' : null }],
    ...extra,
  } as ChatCompletionChunk;
}

/** What a server sends when asked for usage: `usage: null` on every chunk, then a usage-only chunk. */
async function* sseChunks(request: ChatCompletionRequest): AsyncGenerator<ChatCompletionChunk> {
  const withUsage = request.stream_options?.include_usage === true;
  const extra = withUsage ? { usage: null } : {};
  yield chunk('hel', extra);
  yield chunk('lo', extra);
  yield chunk(undefined, extra);
  if (withUsage) yield { id: 'cmpl-2', model: 'weft-model', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } };
}

describe('traceChatCompletion', () => {
  it('traces a promise of a completion and resolves to the same completion', async () => {
    const result = await traceChatCompletion(tracer(), REQUEST, async () => COMPLETION, { serverUrl: SERVER });
    expect(result).toBe(COMPLETION);
    const [span] = await h.spans(1);
    expect(span?.name).toBe('chat weft-model');
    expect(span?.attributes).toEqual({
      ...COMMON,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }]),
      'gen_ai.response.id': 'cmpl-1',
      'gen_ai.response.model': 'weft-model',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 3,
      'gen_ai.usage.output_tokens': 1,
      'llm.usage.total_tokens': 4,
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'hello' }], finish_reason: 'stop' }]),
    });
  });

  it('observes an async iterable of chunks in place, asking for usage and hiding what that adds', async () => {
    let sent: ChatCompletionRequest | undefined;
    const stream = await traceChatCompletion(
      tracer(),
      { ...REQUEST, stream: true },
      async (request) => {
        sent = request;
        return sseChunks(request);
      },
      { serverUrl: SERVER, providerName: 'weft' },
    );
    expect(sent?.stream_options).toEqual({ include_usage: true });
    const seen: unknown[] = [];
    for await (const c of stream) seen.push(c);
    expect(seen).toEqual([chunk('hel'), chunk('lo'), chunk(undefined)]);

    const [span] = await h.spans(1);
    expect(span?.attributes).toEqual({
      ...COMMON,
      'gen_ai.provider.name': 'weft',
      // OpenAI's own attributes go on spans of OpenAI's API only.
      'openai.api.type': undefined,
      'gen_ai.request.stream': true,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }]),
      'gen_ai.response.time_to_first_chunk': expect.any(Number),
      'gen_ai.response.id': 'cmpl-2',
      'gen_ai.response.model': 'weft-model',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 3,
      'gen_ai.usage.output_tokens': 2,
      'llm.usage.total_tokens': 5,
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'hello' }], finish_reason: 'stop' }]),
    });
  });

  it('returns the very stream object invoke gave, and the span ends on break', async () => {
    const source = sseChunks({ ...REQUEST, stream: true, stream_options: { include_usage: true } });
    const returned = traceChatCompletion(tracer(), { ...REQUEST, stream: true, stream_options: { include_usage: true } }, () => source);
    expect(returned).toBe(source);
    for await (const _c of returned) break;
    const [span] = await h.spans(1);
    expect(span?.status.code).toBe(StatusCodeValue.UNSET);
    expect(json(span?.attributes['gen_ai.output.messages'])).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'hel' }], finish_reason: 'error' },
    ]);
  });

  it('rethrows the same error a failing stream raises, and fails the span', async () => {
    const failure = new TypeError('socket hang up');
    async function* broken(): AsyncGenerator<ChatCompletionChunk> {
      yield chunk('hel');
      throw failure;
    }
    const stream = await traceChatCompletion(tracer(), { ...REQUEST, stream: true }, async () => broken());
    let caught: unknown;
    try {
      for await (const _c of stream) {
        // drain
      }
    } catch (error) {
      caught = error;
    }
    expect(caught).toBe(failure);
    const [span] = await h.spans(1);
    expect(span?.status).toEqual({ code: StatusCodeValue.ERROR, message: 'TypeError: socket hang up' });
    expect(span?.attributes['error.type']).toBe('TypeError');
  });

  it('rethrows the same error invoke throws synchronously, and fails the span', async () => {
    const failure = new RangeError('bad body');
    expect(() =>
      traceChatCompletion(tracer(), REQUEST, () => {
        throw failure;
      }),
    ).toThrow(failure);
    const [span] = await h.spans(1);
    expect(span?.attributes['error.type']).toBe('RangeError');
    expect(span?.status.code).toBe(StatusCodeValue.ERROR);
  });

  it('rejects with the same error a failing promise rejects with, and records its HTTP status', async () => {
    const failure = Object.assign(new Error('Too many requests'), { status: 429 });
    const error = await traceChatCompletion(tracer(), REQUEST, () => Promise.reject(failure)).catch((e: unknown) => e);
    expect(error).toBe(failure);
    const [span] = await h.spans(1);
    const { 'server.address': _address, 'server.port': _port, ...withoutServer } = COMMON;
    expect(span?.attributes).toEqual({
      ...withoutServer,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }]),
      'error.type': 'Error',
      'http.response.status_code': 429,
    });
  });

  it('keeps a failure in weft’s own mapping away from the caller, and still ends the span', async () => {
    const unreadable = new Proxy([], {
      get() {
        throw new Error('weft must not let this out');
      },
    });
    const request = { model: 'weft-model', messages: unreadable } as unknown as ChatCompletionRequest;
    const result = await traceChatCompletion(tracer(), request, async () => COMPLETION);
    expect(result).toBe(COMPLETION);
    const [span] = await h.spans(1);
    expect(span?.name).toBe('chat weft-model');
    expect(span?.attributes['gen_ai.response.id']).toBe('cmpl-1');
  });

  it('passes a response of an unexpected shape through unchanged, recording what it can', async () => {
    const odd = { id: 42, choices: 'none', usage: { prompt_tokens: '12', total_tokens: 4 } };
    const result = await traceChatCompletion(tracer(), REQUEST, async () => odd);
    expect(result).toBe(odd);
    expect(odd).toEqual({ id: 42, choices: 'none', usage: { prompt_tokens: '12', total_tokens: 4 } });
    const [span] = await h.spans(1);
    const { 'server.address': _address, 'server.port': _port, ...withoutServer } = COMMON;
    expect(span?.attributes).toEqual({
      ...withoutServer,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }]),
      'llm.usage.total_tokens': 4,
    });
  });

  it('runs invoke inside the chat span, so spans it starts are its children', async () => {
    await traceChatCompletion(tracer(), REQUEST, async () => {
      tracer().startSpan('http POST').end();
      return COMPLETION;
    });
    const spans = await h.spans(2);
    const chat = spans.find((s) => s.name === 'chat weft-model');
    expect(spans.find((s) => s.name === 'http POST')?.parentSpanId).toBe(chat?.spanId);
  });

  it('sends the request untouched and records nothing when the tracer does not record', async () => {
    const silent = new BasicTracerProvider({ sampler: { shouldSample: () => ({ decision: 0 }), toString: () => 'never' } });
    const request = { ...REQUEST, stream: true };
    let sent: ChatCompletionRequest | undefined;
    const stream = sseChunks(request);
    const returned = traceChatCompletion(silent.getTracer('x'), request, (r) => {
      sent = r;
      return stream;
    });
    expect(sent).toBe(request);
    expect(returned).toBe(stream);
    expect(Object.getOwnPropertySymbols(returned)).toEqual([]);
    expect(trace.getActiveSpan()).toBeUndefined();
  });

  it('runs invoke inside a chat span the sampler dropped, so the request’s own spans follow that decision', async () => {
    // A parent-based sampler whose roots are chosen by name: chat spans dropped, anything else kept.
    const dropChat: Sampler = {
      shouldSample: (_context, _traceId, name) => ({
        decision: name.startsWith('chat') ? SamplingDecision.NOT_RECORD : SamplingDecision.RECORD_AND_SAMPLED,
      }),
      toString: () => 'drop chat',
    };
    const provider = new BasicTracerProvider({ sampler: new ParentBasedSampler({ root: dropChat }) });
    let active: SpanContext | undefined;
    let request: Span | undefined;
    await traceChatCompletion(provider.getTracer('x'), REQUEST, async () => {
      active = trace.getActiveSpan()?.spanContext();
      request = provider.getTracer('x').startSpan('http POST');
      request.end();
      return COMPLETION;
    });
    expect(active?.traceFlags).toBe(TraceFlags.NONE);
    // Not a root of its own trace, sampled on its own: the child of the dropped chat span, dropped with it.
    expect(request?.isRecording()).toBe(false);
    expect(request?.spanContext().traceId).toBe(active?.traceId);
  });
});
