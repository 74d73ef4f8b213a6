import { context, DiagConsoleLogger, DiagLogLevel, diag, TraceFlags, trace } from '@opentelemetry/api';
import OpenAI, { AzureOpenAI } from 'openai';
import { Stream } from 'openai/streaming';
import { op, withThread } from 'weft';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKindCode, StatusCodeValue } from '../../src/otlp/index.js';
import { collectGarbage } from '../helpers/gc.js';
import { settlesWithin } from '../helpers/deadline.js';
import { HELLO, type ScriptedCompletion } from '../helpers/openai-server.js';
import {
  DETAILED_ATTRIBUTES,
  DETAILED_HELLO,
  DETAILED_REQUEST,
  HELLO_CUT_SHORT,
  HELLO_OUTPUT,
  HELLO_RESPONSE,
  HELLO_USAGE,
  HI_INPUT,
  STREAMED_HI,
  TWO_CHOICES,
  TWO_CHOICES_ATTRIBUTES,
  WEATHER_CALL,
  WEATHER_CALL_ATTRIBUTES,
  WEATHER_QUESTION,
  WEATHER_TOOL_CALL,
  withContentParsed,
} from './expected-spans.js';
import { API_KEY, type Harness, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const USER_HI = [{ role: 'user' as const, content: 'hi' }];

/** The attributes every streamed call of USER_HI has before its response. */
const streamedHi = (): Record<string, unknown> => ({ ...h.common(), ...STREAMED_HI });

/** A client of the hosted inference service's own host (which sends stream usage unasked), reached over loopback. */
function hostedInferenceClient() {
  const hosted = 'https://api.inference.wandb.ai/v1';
  return h.client({
    baseURL: hosted,
    fetch: (url: string | URL | Request, init?: RequestInit) => fetch(String(url).replace(hosted, h.server.baseURL), init),
  });
}

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _chunk of stream) {
    // read to the end
  }
}

const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('a non-streamed chat completion', () => {
  it('becomes one CLIENT span named after the model, with parameters, messages, output and usage', async () => {
    h.server.reply(DETAILED_HELLO);
    const completion = await h.client().chat.completions.create({ model: 'gpt-4o-mini', ...DETAILED_REQUEST });
    expect(completion.choices[0]?.message.content).toBe('Hello there!');

    const [span] = await h.spans(1);
    expect(span?.name).toBe('chat gpt-4o-mini');
    expect(span?.kind).toBe(SpanKindCode.CLIENT);
    expect(span?.status.code).toBe(StatusCodeValue.UNSET);
    expect(withContentParsed(span!.attributes)).toEqual({ ...h.common(), ...DETAILED_ATTRIBUTES });
  });

  it('is a child of the span that is active when the call is made', async () => {
    h.server.reply(HELLO);
    const tracer = trace.getTracer('test');
    await tracer.startActiveSpan('handle request', async (parent) => {
      await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI });
      parent.end();
    });
    const spans = await h.spans(2);
    const chat = spans.find((s) => s.name === 'chat gpt-4o-mini');
    const parent = spans.find((s) => s.name === 'handle request');
    expect(chat?.parentSpanId).toBe(parent?.spanId);
    expect(chat?.traceId).toBe(parent?.traceId);
  });

  // op() follows an APIPromise through asResponse(), which weft's hook on it must not take for the app's own.
  for (const stream of [false, true]) {
    it(`records the response of a ${stream ? 'stream' : 'call'} whose APIPromise an op returns as it is`, async () => {
      h.server.reply(HELLO);
      const ask = op(function ask() {
        return h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream });
      });
      const result = await ask();
      const chunks: unknown[] = [];
      if (result instanceof Stream) for await (const chunk of result) chunks.push(chunk);
      const spans = await h.spans(2);
      const chat = spans.find((s) => s.name === 'chat gpt-4o-mini');
      expect(withContentParsed(chat!.attributes)).toMatchObject({ 'gen_ai.output.messages': HELLO_OUTPUT, 'llm.usage.total_tokens': 15 });
      // The usage chunk weft asked for stays hidden.
      expect(chunks).toHaveLength(stream ? 5 : 0);
      // The op's output (the Stream itself) names the stream's own method, not weft's wrapper of it.
      if (stream) expect(spans.find((s) => s.name === 'ask')?.attributes.output).toContain('"[Function iterator]"');
    });
  }

  it('ends both spans, without output, once the APIPromise an op returned is dropped unread and collected', async () => {
    h.server.reply(HELLO);
    const before = h.server.requests.length;
    const ask = op(function ask() {
      return h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI });
    });
    const exported = h.receiver.spans().length;
    ask();
    while (h.server.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
    // Once the answer has reached the client nothing holds the promise: collected, it ends both spans.
    for (let round = 0; round < 50 && h.receiver.spans().length < exported + 2; round++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      await collectGarbage();
      await h.handle.forceFlush();
    }
    const spans = await h.spans(2);
    expect(spans.map((s) => [s.name, s.status.code]).sort()).toEqual([
      ['ask', StatusCodeValue.UNSET],
      ['chat gpt-4o-mini', StatusCodeValue.UNSET],
    ]);
    expect(spans.find((s) => s.name === 'chat gpt-4o-mini')?.attributes).not.toHaveProperty('gen_ai.output.messages');
  });

  it('carries the thread of a withThread() scope, also as gen_ai.conversation.id; the op around it does not', async () => {
    h.server.reply(HELLO);
    const ask = op(async function ask(question: string) {
      const completion = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }] });
      return completion.choices[0]?.message.content;
    });
    await withThread('support-42', () => ask('hi'));
    const spans = await h.spans(2);
    const chat = spans.find((s) => s.name === 'chat gpt-4o-mini');
    const turn = spans.find((s) => s.name === 'ask');
    expect(chat?.attributes).toMatchObject({ 'wandb.thread_id': 'support-42', 'gen_ai.conversation.id': 'support-42' });
    expect(chat?.attributes).not.toHaveProperty('wandb.is_turn');
    expect(turn?.attributes).toMatchObject({ 'wandb.thread_id': 'support-42', 'wandb.is_turn': true });
    expect(turn?.attributes).not.toHaveProperty('gen_ai.conversation.id');
  });

  it('spans the whole call: it starts before the server sees the request and ends after the last chunk', async () => {
    // The span starts when first read, or as the call ends, but always with the call's own start time.
    const ms = (t: number) => BigInt(t) * 1_000_000n;
    let receivedAt = 0;
    h.server.reply(() => {
      receivedAt = Date.now();
      return HELLO;
    });
    const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
    await new Promise((resolve) => setTimeout(resolve, 25));
    await drain(stream);
    const [span] = await h.spans(1);
    // Date.now() truncates to the millisecond: the request reached the server before receivedAt + 1 ms.
    expect(span?.startTimeUnixNano).toBeLessThan(ms(receivedAt + 1));
    expect(span?.endTimeUnixNano).toBeGreaterThanOrEqual(ms(receivedAt + 25));
  });

  it('leaves a call alone under a parent that is not sampled: the request as sent, no span', async () => {
    h.server.reply(HELLO);
    const unsampled = trace.setSpanContext(context.active(), {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.NONE,
    });
    const stream = await context.with(unsampled, () =>
      h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true }),
    );
    await drain(stream);
    expect(h.server.requests.at(-1)?.body.stream_options).toBeUndefined();
    h.server.reply(HELLO);
    await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI });
    const spans = await h.spans(1);
    expect(spans.map((s) => s.attributes['gen_ai.request.stream'])).toEqual([undefined]);
  });

  it('records one output message per choice when several are asked for', async () => {
    h.server.reply(TWO_CHOICES);
    await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, n: 2 });
    const [span] = await h.spans(1);
    expect(withContentParsed(span!.attributes)).toEqual({ ...h.common(), ...TWO_CHOICES_ATTRIBUTES });
  });
});

describe('tool calls', () => {
  it('records the tools offered and the calls the model asked for', async () => {
    h.server.reply(WEATHER_CALL);
    const completion = await h.client().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER_TOOL],
    });
    expect(completion.choices[0]?.message.tool_calls?.[0]?.id).toBe('call_1');
    const [span] = await h.spans(1);
    expect(withContentParsed(span!.attributes)).toEqual({ ...h.common(), ...WEATHER_CALL_ATTRIBUTES });
  });

  it('records tool calls and their results sent back to the model', async () => {
    h.server.reply({ ...HELLO, choices: [{ content: 'It rains in Paris.', finishReason: 'stop' }] });
    await h.client().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'rainy, 14°C' },
      ],
      tools: [WEATHER_TOOL],
    });
    const [span] = await h.spans(1);
    expect(withContentParsed(span!.attributes)['gen_ai.input.messages']).toEqual([
      WEATHER_QUESTION,
      { role: 'assistant', parts: [WEATHER_TOOL_CALL] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: 'rainy, 14°C' }] },
    ]);
  });

  it('puts a streamed tool call back together from its argument fragments', async () => {
    h.server.reply(WEATHER_CALL);
    const stream = await h.client().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER_TOOL],
      stream: true,
    });
    await drain(stream);
    const [span] = await h.spans(1);
    const attributes = withContentParsed(span!.attributes);
    expect(attributes['gen_ai.output.messages']).toEqual([{ role: 'assistant', parts: [WEATHER_TOOL_CALL], finish_reason: 'tool_call' }]);
    expect(attributes['gen_ai.response.finish_reasons']).toEqual(['tool_calls']);
  });
});

describe('a streamed chat completion', () => {
  it('records usage the caller asked for, and the caller still sees the usage chunk', async () => {
    h.server.reply(HELLO);
    const stream = await h.client().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: USER_HI,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-1)?.usage?.total_tokens).toBe(15);
    expect(chunks.at(-1)?.choices).toEqual([]);

    const [span] = await h.spans(1);
    expect(withContentParsed(span!.attributes)).toEqual({ ...streamedHi(), ...HELLO_RESPONSE, ...HELLO_USAGE, 'gen_ai.output.messages': HELLO_OUTPUT });
  });

  it('asks for usage when the caller did not, and hides the extra chunk from the caller', async () => {
    h.server.reply(HELLO);
    const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);

    const sent = h.server.requests.at(-1)?.body;
    expect(sent?.stream_options).toEqual({ include_usage: true });
    expect(chunks).toHaveLength(5);
    for (const chunk of chunks) {
      expect(chunk.choices).toHaveLength(1);
      expect('usage' in chunk).toBe(false);
    }
    const [span] = await h.spans(1);
    expect(withContentParsed(span!.attributes)).toEqual({ ...streamedHi(), ...HELLO_RESPONSE, ...HELLO_USAGE, 'gen_ai.output.messages': HELLO_OUTPUT });
  });

  for (const choices of ['null', 'absent'] as const) {
    it(`hides a usage chunk whose choices are ${choices === 'null' ? 'null' : 'left out'}, as some providers send it, and records it`, async () => {
      h.server.reply({ ...HELLO, usageChunkChoices: choices });
      const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);

      expect(h.server.requests.at(-1)?.body?.stream_options).toEqual({ include_usage: true });
      // The app sees the content chunks alone: an app reading chunk.choices[0] would break on the usage chunk.
      expect(chunks).toHaveLength(5);
      for (const chunk of chunks) expect(chunk.choices).toHaveLength(1);
      const [span] = await h.spans(1);
      expect(withContentParsed(span!.attributes)).toEqual({ ...streamedHi(), ...HELLO_RESPONSE, ...HELLO_USAGE, 'gen_ai.output.messages': HELLO_OUTPUT });
    });
  }

  it('hides the usage a server puts on the chunk that finishes the last choice, and records it', async () => {
    h.server.reply({ ...HELLO, usageOnLastChoice: true });
    const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(h.server.requests.at(-1)?.body?.stream_options).toEqual({ include_usage: true });
    expect(chunks).toHaveLength(5);
    for (const chunk of chunks) expect('usage' in chunk).toBe(false);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    const [span] = await h.spans(1);
    expect(withContentParsed(span!.attributes)).toEqual({ ...streamedHi(), ...HELLO_RESPONSE, ...HELLO_USAGE, 'gen_ai.output.messages': HELLO_OUTPUT });
  });

  it('leaves the request alone when asking for stream usage is turned off', async () => {
    h.instrumentation.setConfig({ requestStreamUsage: false });
    try {
      h.server.reply(HELLO);
      const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
      await drain(stream);
      expect(h.server.requests.at(-1)?.body).toEqual({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
      const [span] = await h.spans(1);
      expect(withContentParsed(span!.attributes)).toEqual({ ...streamedHi(), ...HELLO_RESPONSE, 'gen_ai.output.messages': HELLO_OUTPUT });
    } finally {
      h.instrumentation.setConfig({});
    }
  });

  it('neither asks nor hides on the platform’s inference service, which sends usage unasked', async () => {
    // What the app gets must not change with weft.
    const client = hostedInferenceClient();
    h.server.reply({ ...HELLO, usageUnasked: true });
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(h.server.requests.at(-1)?.body).toEqual({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
    expect(chunks).toHaveLength(6);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: 15 } });
    const [span] = await h.spans(1);
    expect(withContentParsed(span!.attributes)).toEqual({
      ...streamedHi(),
      'server.address': 'api.inference.wandb.ai',
      'server.port': 443,
      ...HELLO_RESPONSE,
      ...HELLO_USAGE,
      'gen_ai.output.messages': HELLO_OUTPUT,
    });
  });

  it('neither asks nor hides on the inference service the environment names (WEFT_INFERENCE_BASE_URL)', async () => {
    // The same machine written another way (localhost for 127.0.0.1) is the same service.
    const local = h.server.baseURL.replace('127.0.0.1', 'localhost');
    const client = h.client({
      baseURL: local,
      fetch: (url: string | URL | Request, init?: RequestInit) => fetch(String(url).replace(local, h.server.baseURL), init),
    });
    process.env.WEFT_INFERENCE_BASE_URL = h.server.baseURL;
    try {
      h.server.reply({ ...HELLO, usageUnasked: true });
      const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(h.server.requests.at(-1)?.body).toEqual({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
      expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: 15 } });
    } finally {
      delete process.env.WEFT_INFERENCE_BASE_URL;
    }
    const [span] = await h.spans(1);
    expect(span?.attributes['llm.usage.total_tokens']).toBe(15);
  });

  it('records every choice of a multi-choice stream', async () => {
    h.server.reply(TWO_CHOICES);
    const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, n: 2, stream: true });
    await drain(stream);
    const [span] = await h.spans(1);
    expect(withContentParsed(span!.attributes)).toEqual({ ...streamedHi(), ...TWO_CHOICES_ATTRIBUTES });
  });

  it('ends the span at a break when the choices asked for have not all come, rather than read on for the usage', async () => {
    // A server that sends each choice in turn: at the break two of the three have finished, and the third is to come.
    h.server.reply({
      ...HELLO,
      choices: [
        { content: 'one', finishReason: 'stop' },
        { content: 'two', finishReason: 'stop' },
        { content: 'three', finishReason: 'stop' },
      ],
      choiceAfterChoice: true,
    });
    const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, n: 3, stream: true });
    for await (const chunk of stream) if (chunk.choices[0]?.index === 1 && chunk.choices[0].finish_reason) break;

    const [span] = await h.spans(1);
    // Left with what came: two choices and no usage, as the app left them.
    expect(span!.attributes['gen_ai.response.finish_reasons']).toEqual(['stop', 'stop']);
    expect(span!.attributes).not.toHaveProperty(['gen_ai.usage.input_tokens']);
    expect(span!.status.code).toBe(0);
  });

  it('stays the SDK Stream, and its tee() branches both see every chunk under one span', async () => {
    h.server.reply(HELLO);
    const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
    expect(stream).toBeInstanceOf(Stream);
    const [left, right] = stream.tee();
    const read = async (s: AsyncIterable<unknown>) => {
      const out: unknown[] = [];
      for await (const c of s) out.push(c);
      return out;
    };
    const [a, b] = await Promise.all([read(left), read(right)]);
    expect(a).toHaveLength(5);
    expect(b).toEqual(a);
    const [span] = await h.spans(1);
    expect(withContentParsed(span!.attributes)['gen_ai.output.messages']).toEqual(HELLO_OUTPUT);
  });

  it('ends the span when the app leaves the loop early with break', async () => {
    h.server.reply(HELLO);
    const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content === 'Hello') break;
    }
    const [span] = await h.spans(1);
    expect(span?.status.code).toBe(StatusCodeValue.UNSET);
    expect(withContentParsed(span!.attributes)).toEqual({ ...streamedHi(), ...HELLO_CUT_SHORT });
  });

  it('records the usage that follows the last choice when the app leaves the loop at that choice', async () => {
    h.server.reply(HELLO);
    const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
    for await (const chunk of stream) {
      if (chunk.choices[0]?.finish_reason) break;
    }
    const [span] = await h.spans(1);
    expect(span?.status.code).toBe(StatusCodeValue.UNSET);
    expect(withContentParsed(span!.attributes)).toEqual({
      ...streamedHi(),
      ...HELLO_RESPONSE,
      ...HELLO_USAGE,
      'gen_ai.output.messages': HELLO_OUTPUT,
    });
  });

  it('records the usage the platform’s inference service sends unasked when the app leaves the loop at the last choice', async () => {
    const client = hostedInferenceClient();
    h.server.reply({ ...HELLO, usageUnasked: true });
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
    for await (const chunk of stream) {
      if (chunk.choices[0]?.finish_reason) break;
    }
    const [span] = await h.spans(1);
    expect(span?.status.code).toBe(StatusCodeValue.UNSET);
    expect(span?.attributes).toMatchObject(HELLO_USAGE);
  });

  it('stops the request, and ends the span without usage, when the usage never follows the last choice', async () => {
    // The server holds the stream open after the last choice, without the usage weft asked for.
    h.server.reply({ ...HELLO, hangAfterChunks: 5 });
    const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
    for await (const chunk of stream) {
      if (chunk.choices[0]?.finish_reason) break;
    }
    const { signal } = stream.controller;
    await settlesWithin(
      new Promise((resolve) => (signal.aborted ? resolve(undefined) : signal.addEventListener('abort', resolve))),
      'the request of a stream left at its last choice',
    );
    const [span] = await h.spans(1);
    expect(span?.status.code).toBe(StatusCodeValue.UNSET);
    expect(withContentParsed(span!.attributes)).toEqual({ ...streamedHi(), ...HELLO_RESPONSE, 'gen_ai.output.messages': HELLO_OUTPUT });
  });

  it('ends the span as failed when the app aborts the stream with its controller', async () => {
    h.server.reply({ ...HELLO, hangAfterChunks: 2 });
    const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
    const seen = [];
    for await (const chunk of stream) {
      seen.push(chunk);
      if (seen.length === 2) stream.controller.abort();
    }
    expect(seen).toHaveLength(2);
    const [span] = await h.spans(1);
    expect(span?.status.code).toBe(StatusCodeValue.ERROR);
    expect(withContentParsed(span!.attributes)).toEqual({ ...streamedHi(), ...HELLO_CUT_SHORT, 'error.type': 'AbortError' });
    expect(span?.events.map((e) => e.name)).toEqual(['exception']);
  });

  it('ends the span as failed when the app aborts its signal and never reads the stream again', async () => {
    // What LangChain's stream() does with its signal: it throws at once, and leaves openai's stream where it was.
    h.server.reply({ ...HELLO, hangAfterChunks: 2 });
    const app = new AbortController();
    const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true }, { signal: app.signal });
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.next();
    app.abort();
    const [span] = await h.spans(1);
    expect(span?.status.code).toBe(StatusCodeValue.ERROR);
    expect(withContentParsed(span!.attributes)).toEqual({ ...streamedHi(), ...HELLO_CUT_SHORT, 'error.type': 'AbortError' });
  });

  it('ends the span as failed when the reader of toReadableStream() cancels mid-stream (openai 7 aborts the request first)', async () => {
    h.server.reply({ ...HELLO, hangAfterChunks: 2 });
    const reader = (await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true }))
      .toReadableStream()
      .getReader();
    await reader.read();
    await reader.cancel();
    const [span] = await h.spans(1);
    expect(span?.status.code).toBe(StatusCodeValue.ERROR);
    expect(span?.attributes['error.type']).toBe('AbortError');
  });

  it('ends the span as a success when the stream is aborted after the whole response came', async () => {
    const withUsage = { model: 'gpt-4o-mini', messages: USER_HI, stream: true as const, stream_options: { include_usage: true } };
    // The app stops at the usage chunk, before [DONE]: by aborting, or by cancelling its ReadableStream (which
    // openai does by aborting the request before it stops the iterator).
    h.server.reply(HELLO);
    const stream = await h.client().chat.completions.create(withUsage);
    for await (const chunk of stream) if (chunk.usage) stream.controller.abort();
    h.server.reply(HELLO);
    const reader = (await h.client().chat.completions.create(withUsage)).toReadableStream().getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      if (new TextDecoder().decode(read.value).includes('"usage":{')) {
        await reader.cancel();
        break;
      }
    }
    const spans = await h.spans(2);
    for (const span of spans) {
      expect(span.status.code).toBe(StatusCodeValue.UNSET);
      expect(withContentParsed(span.attributes)).toEqual({
        ...streamedHi(),
        ...HELLO_RESPONSE,
        ...HELLO_USAGE,
        'gen_ai.output.messages': HELLO_OUTPUT,
      });
    }
  });

  it('ends the span as failed, with the same error the app gets, when the server cuts the stream', async () => {
    h.server.reply({ ...HELLO, cutAfterChunks: 2 });
    const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
    let caught: unknown;
    try {
      await drain(stream);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Error);
    const [span] = await h.spans(1);
    const type = (caught as Error).name === 'Error' ? (caught as Error).constructor.name : (caught as Error).name;
    // The class in front of the message, as Node prints it: the trace service shows only the status message.
    expect(span?.status).toEqual({ code: StatusCodeValue.ERROR, message: `${type}: ${(caught as Error).message}` });
    expect(span?.attributes['error.type']).toBe(type);
    expect(span?.events[0]?.attributes['exception.message']).toBe((caught as Error).message);
  });

  it('converts to a ReadableStream with the same bytes, and ends the span when it is read', async () => {
    h.server.reply(HELLO);
    const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
    const text = await new Response(stream.toReadableStream()).text();
    const lines = text.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines.map((l) => JSON.stringify(JSON.parse(l)))).toEqual(
      h.server.sentChunks(h.server.requests.length - 1).slice(0, 5).map((c) => {
        const { usage: _usage, ...rest } = c as Record<string, unknown>;
        return JSON.stringify(rest);
      }),
    );
    const [span] = await h.spans(1);
    expect(withContentParsed(span!.attributes)['llm.usage.total_tokens']).toBe(15);
  });
});

describe('the caller sees the same chunks with and without weft', () => {
  const script: ScriptedCompletion = {
    id: 'chatcmpl-same',
    model: 'gpt-4o-mini',
    systemFingerprint: 'fp_same',
    // After `usage` on every chunk, as in OpenAI's streams: the key weft takes out is not the last one.
    obfuscation: 'pAd',
    choices: [
      { content: ['Let me ', 'check.'], toolCalls: [{ id: 'call_9', name: 'lookup', arguments: ['{"q":', '"x"}'] }], finishReason: 'tool_calls' },
      { content: ['Sure', '!'], finishReason: 'stop' },
    ],
    usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
  };

  async function chunksSeen(options: { includeUsage?: boolean } = {}): Promise<string[]> {
    const stream = await h.client().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: USER_HI,
      n: 2,
      stream: true,
      ...(options.includeUsage ? { stream_options: { include_usage: true } } : {}),
    });
    const out: string[] = [];
    for await (const chunk of stream) out.push(JSON.stringify(chunk));
    return out;
  }

  async function bytesSeen(): Promise<string> {
    const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, n: 2, stream: true });
    return new Response(stream.toReadableStream()).text();
  }

  it('byte for byte, when weft asks for usage behind the caller’s back', async () => {
    h.server.reply(script);
    h.instrumentation.disable();
    let without: string[];
    let withoutBytes: string;
    try {
      without = await chunksSeen();
      withoutBytes = await bytesSeen();
    } finally {
      h.instrumentation.enable();
    }
    const withWeft = await chunksSeen();
    const withWeftBytes = await bytesSeen();
    expect(withWeft).toEqual(without);
    expect(withWeftBytes).toBe(withoutBytes);
    const spans = await h.spans(2);
    expect(spans.map((s) => s.attributes['llm.usage.total_tokens'])).toEqual([12, 12]);
  });

  it('byte for byte, when the caller asked for usage itself', async () => {
    h.server.reply(script);
    h.instrumentation.disable();
    let without: string[];
    try {
      without = await chunksSeen({ includeUsage: true });
    } finally {
      h.instrumentation.enable();
    }
    expect(await chunksSeen({ includeUsage: true })).toEqual(without);
    await h.spans(1);
  });
});

describe('API errors', () => {
  const cases = [
    { status: 400, type: 'BadRequestError', message: 'Invalid value for temperature' },
    { status: 429, type: 'RateLimitError', message: 'Rate limit reached' },
    { status: 500, type: 'InternalServerError', message: 'The server had an error' },
  ];
  for (const { status, type, message } of cases) {
    it(`a ${status} reaches the app as the SDK's ${type} and ends the span as failed`, async () => {
      h.server.reply({ status, error: { message, type: 'server_error' } });
      const pending = h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI });
      const first = await pending.then(
        () => undefined,
        (e: unknown) => e,
      );
      const second = await pending.catch((e: unknown) => e);
      expect(first).toBeInstanceOf(OpenAI.APIError);
      expect((first as InstanceType<typeof OpenAI.APIError>).constructor.name).toBe(type);
      expect((first as InstanceType<typeof OpenAI.APIError>).status).toBe(status);
      expect(second).toBe(first);

      const [span] = await h.spans(1);
      expect(span?.status).toEqual({ code: StatusCodeValue.ERROR, message: `${type}: ${(first as Error).message}` });
      expect(withContentParsed(span!.attributes)).toEqual({
        ...h.common(),
        'gen_ai.input.messages': HI_INPUT,
        'error.type': type,
        'http.response.status_code': status,
      });
      expect(span?.events).toHaveLength(1);
      expect(span?.events[0]?.name).toBe('exception');
      expect(span?.events[0]?.attributes).toMatchObject({ 'exception.type': type, 'exception.message': (first as Error).message });
    });
  }

  it('a 429 to a streamed request reaches the app as the SDK’s RateLimitError and fails the span, with no stream recorded', async () => {
    h.server.reply({ status: 429, error: { message: 'Rate limit reached', type: 'requests' } });
    const pending = h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
    const error = await pending.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(await pending.catch((e: unknown) => e)).toBe(error);
    const [span] = await h.spans(1);
    expect(span?.status).toEqual({ code: StatusCodeValue.ERROR, message: `RateLimitError: ${(error as Error).message}` });
    expect(withContentParsed(span!.attributes)).toEqual({
      ...h.common(),
      'gen_ai.request.stream': true,
      'gen_ai.input.messages': HI_INPUT,
      'error.type': 'RateLimitError',
      'http.response.status_code': 429,
    });
    expect(span?.events.map((e) => [e.name, e.attributes['exception.type']])).toEqual([['exception', 'RateLimitError']]);
  });

  it('a refused connection reaches the app as the SDK’s connection error and fails the span', async () => {
    const closed = h.client({ baseURL: 'http://127.0.0.1:1/v1' });
    const error = await closed.chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIConnectionError);
    const [span] = await h.spans(1);
    expect(span?.status).toEqual({ code: StatusCodeValue.ERROR, message: `APIConnectionError: ${(error as Error).message}` });
    expect(span?.events.map((e) => [e.name, e.attributes['exception.type']])).toEqual([['exception', 'APIConnectionError']]);
    expect(withContentParsed(span!.attributes)).toEqual({
      ...h.common(),
      'server.port': 1,
      'gen_ai.input.messages': HI_INPUT,
      'error.type': 'APIConnectionError',
    });
  });

  it('an aborted request reaches the app as the SDK’s abort error and fails the span', async () => {
    h.server.reply({ ...HELLO, hang: true });
    const controller = new AbortController();
    const pending = h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI }, { signal: controller.signal });
    const settled = pending.catch((e: unknown) => e);
    await waitFor(() => h.server.requests.length > 0 && h.server.requests.at(-1)?.body.messages !== undefined);
    controller.abort();
    const error = await settled;
    expect(error).toBeInstanceOf(OpenAI.APIUserAbortError);
    const [span] = await h.spans(1);
    expect(span?.status).toEqual({ code: StatusCodeValue.ERROR, message: `APIUserAbortError: ${(error as Error).message}` });
    expect(withContentParsed(span!.attributes)).toEqual({ ...h.common(), 'gen_ai.input.messages': HI_INPUT, 'error.type': 'APIUserAbortError' });
    expect(span?.events.map((e) => [e.name, e.attributes['exception.type']])).toEqual([['exception', 'APIUserAbortError']]);
  });

  it('never records the API key, even when the server quotes it in its error', async () => {
    h.server.reply({ status: 401, error: { message: `Incorrect API key provided: ${API_KEY}.`, type: 'invalid_request_error' } });
    const error = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI }).catch((e: unknown) => e);
    expect((error as Error).message).toContain(API_KEY);
    const [span] = await h.spans(1);
    expect(JSON.stringify(span, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(API_KEY);
    expect(span?.status.message).toContain('[REDACTED]');
  });
});

describe('the API promise keeps its helpers', () => {
  it('.withResponse() gives the data, the raw response and the request id', async () => {
    h.server.reply(HELLO);
    const { data, response, request_id } = await h
      .client()
      .chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('Hello there!');
    expect(response.status).toBe(200);
    expect(request_id).toBe('req_test_123');
    const [span] = await h.spans(1);
    expect(withContentParsed(span!.attributes)['gen_ai.output.messages']).toEqual(HELLO_OUTPUT);
  });

  it('.withResponse() on a stream gives the SDK Stream, still traced', async () => {
    h.server.reply(HELLO);
    const { data: stream, request_id } = await h
      .client()
      .chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true })
      .withResponse();
    expect(request_id).toBe('req_test_123');
    let count = 0;
    for await (const _chunk of stream) count += 1;
    expect(count).toBe(5);
    const [span] = await h.spans(1);
    expect(withContentParsed(span!.attributes)['llm.usage.total_tokens']).toBe(15);
  });

  it('.asResponse() leaves the body unread for the app, and the span still ends', async () => {
    h.server.reply(HELLO);
    const response = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI }).asResponse();
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]?.message.content).toBe('Hello there!');
    const [span] = await h.spans(1);
    expect(withContentParsed(span!.attributes)).toEqual({ ...h.common(), 'gen_ai.input.messages': HI_INPUT });
  });

  it('.asResponse() on a stream sends the request as the app gave it: the raw body has no usage weft asked for', async () => {
    for (const stream_options of [undefined, { include_usage: false }]) {
      h.server.reply(HELLO);
      const body = { model: 'gpt-4o-mini', messages: USER_HI, stream: true as const, ...(stream_options ? { stream_options } : {}) };
      const response = await h.client().chat.completions.create(body).asResponse();
      const text = await response.text();
      expect(h.server.requests.at(-1)?.body).toEqual(body);
      expect(text).toContain('Hello');
      expect(text).not.toContain('usage');
    }
    const spans = await h.spans(2);
    expect(spans.map((s) => s.attributes['gen_ai.request.stream'])).toEqual([true, true]);
  });

  it('.parse() on the API promise resolves to the completion', async () => {
    h.server.reply(HELLO);
    const pending = h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI });
    // `parse()` is private in openai 7's types but public at runtime; apps written for older majors call it.
    const completion = await (pending as unknown as { parse(): Promise<{ id: string }> }).parse();
    expect(completion.id).toBe('chatcmpl-hello');
    const [span] = await h.spans(1);
    expect(span?.attributes['gen_ai.response.id']).toBe('chatcmpl-hello');
  });
});

describe('the provider', () => {
  it('is azure.ai.openai for an AzureOpenAI client, whatever its host (a gateway, a custom domain)', async () => {
    h.server.reply(HELLO);
    const azure = new AzureOpenAI({ baseURL: h.server.baseURL, apiKey: API_KEY, apiVersion: '2024-10-21', maxRetries: 0 });
    await azure.chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI });
    const [span] = await h.spans(1);
    expect(span?.attributes).toMatchObject({ 'gen_ai.provider.name': 'azure.ai.openai', 'server.address': '127.0.0.1' });
  });

  // Azure OpenAI answers `stream_options` with a 400 before API version 2024-09-01-preview.
  it.each([
    ['2024-06-01', undefined],
    ['2024-08-01-preview', undefined],
    ['2024-09-01-preview', { include_usage: true }],
    ['2024-10-21', { include_usage: true }],
  ])('asks an AzureOpenAI client on API version %s for stream usage only where Azure takes it', async (apiVersion, asked) => {
    h.server.reply(HELLO);
    const azure = new AzureOpenAI({ baseURL: h.server.baseURL, apiKey: API_KEY, apiVersion, maxRetries: 0 });
    const stream = await azure.chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
    await drain(stream);
    expect(h.server.requests.at(-1)?.body?.stream_options).toEqual(asked);
    const [span] = await h.spans(1);
    expect(span?.attributes['gen_ai.usage.input_tokens']).toBe(asked ? HELLO_USAGE['gen_ai.usage.input_tokens'] : undefined);
  });
});

describe('chat.completions.parse', () => {
  it('is traced as one span with the structured output requested', async () => {
    h.server.reply({ ...HELLO, choices: [{ content: '{"answer":42}', finishReason: 'stop' }] });
    const completion = await h.client().chat.completions.parse({
      model: 'gpt-4o-mini',
      messages: USER_HI,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', strict: true, schema: { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false } },
      },
    });
    expect(completion.choices[0]?.message.parsed).toEqual({ answer: 42 });
    const spans = await h.spans(1);
    expect(spans).toHaveLength(1);
    expect(withContentParsed(spans[0]!.attributes)).toEqual({
      ...h.common(),
      'gen_ai.output.type': 'json',
      'gen_ai.input.messages': HI_INPUT,
      ...HELLO_RESPONSE,
      ...HELLO_USAGE,
      'gen_ai.output.messages': [{ role: 'assistant', parts: [{ type: 'text', content: '{"answer":42}' }], finish_reason: 'stop' }],
    });
  });

  it('records the completion it received when parsing it fails, with the error the app gets', async () => {
    const ANSWER_FORMAT = {
      type: 'json_schema' as const,
      json_schema: { name: 'answer', strict: true, schema: { type: 'object', properties: { answer: { type: 'number' } } } },
    };
    // A 200 the app pays for, then an error from openai's parsing: the answer was cut at max_tokens, or is not JSON.
    const replies = [
      { content: '{"answer":', finishReason: 'length', error: 'LengthFinishReasonError' },
      { content: 'forty-two', finishReason: 'stop', error: 'SyntaxError' },
    ];
    for (const reply of replies) {
      h.server.reply({ ...HELLO, choices: [{ content: reply.content, finishReason: reply.finishReason }] });
      const failure = await h
        .client()
        .chat.completions.parse({ model: 'gpt-4o-mini', messages: USER_HI, response_format: ANSWER_FORMAT })
        .catch((error: unknown) => error);
      expect((failure as Error).constructor.name).toBe(reply.error);

      const [span] = await h.spans(1);
      expect(span?.status.code).toBe(StatusCodeValue.ERROR);
      expect(withContentParsed(span!.attributes)).toMatchObject({
        'error.type': reply.error,
        'gen_ai.response.id': HELLO_RESPONSE['gen_ai.response.id'],
        'gen_ai.response.finish_reasons': [reply.finishReason],
        ...HELLO_USAGE,
        'gen_ai.output.messages': [{ role: 'assistant', parts: [{ type: 'text', content: reply.content }], finish_reason: reply.finishReason }],
      });
    }
  });
});

describe('patching', () => {
  it('is undone by disable(), and redone by enable()', async () => {
    const Completions = OpenAI.Chat.Completions.prototype;
    const patched = Completions.create;
    let original: unknown;
    h.instrumentation.disable();
    try {
      original = Completions.create;
      expect(original).not.toBe(patched);
      expect((patched as unknown as { __original: unknown }).__original).toBe(original);
      h.server.reply(HELLO);
      await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI });
    } finally {
      h.instrumentation.enable();
    }
    expect(Completions.create).not.toBe(original);
    await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI });
    const spans = await h.spans(1);
    expect(spans).toHaveLength(1);
  });

  it('leaves a module of unknown shape alone and warns once', () => {
    const warnings: string[] = [];
    const record = (...args: unknown[]) => void warnings.push(args.join(' '));
    diag.setLogger({ error: record, warn: record, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
    try {
      const strange = { OpenAI: { Chat: { Completions: { prototype: { list() {} } } } } };
      expect(h.instrumentation.manuallyInstrument(strange)).toBe(false);
      expect(h.instrumentation.manuallyInstrument({})).toBe(false);
      expect(strange.OpenAI.Chat.Completions.prototype).toEqual({ list: expect.any(Function) });
      expect(warnings.filter((line) => line.includes('left unpatched'))).toHaveLength(1);
      const throwOnRead = () => {
        throw new Error('no touching');
      };
      const hostile = new Proxy({}, { get: throwOnRead });
      expect(h.instrumentation.manuallyInstrument(hostile)).toBe(false);
    } finally {
      diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.WARN);
    }
  });

  it('refuses options it cannot use, naming them, and keeps tracing with the previous ones', async () => {
    expect(() => h.instrumentation.setConfig({ maxMessageLength: 1 })).toThrow(/maxMessageLength/);
    h.server.reply(HELLO);
    await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI });
    const [span] = await h.spans(1);
    expect(withContentParsed(span!.attributes)['gen_ai.output.messages']).toEqual(HELLO_OUTPUT);
  });

  it('never patches the same module twice, whoever asks', async () => {
    const before = OpenAI.Chat.Completions.prototype.create;
    h.instrumentation.manuallyInstrument(OpenAI);
    h.instrumentation.manuallyInstrument(h.client());
    expect(OpenAI.Chat.Completions.prototype.create).toBe(before);
    h.server.reply(HELLO);
    await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI });
    const spans = await h.spans(1);
    expect(spans).toHaveLength(1);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('the SDK’s stream helper', () => {
  it('chat.completions.stream() still assembles the final completion, under one span', async () => {
    h.server.reply(HELLO);
    const runner = h.client().chat.completions.stream({ model: 'gpt-4o-mini', messages: USER_HI });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe('Hello there!');
    const spans = await h.spans(1);
    expect(spans).toHaveLength(1);
    expect(withContentParsed(spans[0]!.attributes)['gen_ai.output.messages']).toEqual(HELLO_OUTPUT);
    expect(spans[0]?.attributes['llm.usage.total_tokens']).toBe(15);
  });
});
