import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type WeftHandle, WeftRateLimitError, register } from 'weft';
import { type OtlpReceiver, startOtlpReceiver } from '../../helpers/otlp-receiver.js';
import { type LoopbackServer, sendJson, startLoopbackServer } from './loopback-server.js';
import { API_KEY, USAGE, chunk, completion, inferenceClient, sseText, startSse, trainingClient, closeClients } from './support.js';

const SPAN_KIND_CLIENT = 3;
const STATUS_ERROR = 2;

let receiver: OtlpReceiver;
let weft: WeftHandle;
let server: LoopbackServer | undefined;

beforeEach(async () => {
  receiver = await startOtlpReceiver();
  weft = register({ baseUrl: receiver.url, project: 'acme/bot', apiKey: 'sk-otlp-key-0000', instrumentations: [] });
});

afterEach(async () => {
  await closeClients();
  await weft.shutdown();
  await receiver.close();
  await server?.close();
  server = undefined;
});

const request = { model: 'meta-llama/Llama-3.1-8B-Instruct', messages: [{ role: 'user' as const, content: 'Hi' }], temperature: 0.5 };

describe('chat calls of the clients are traced like the openai instrumentation traces them', () => {
  it('makes one CLIENT span "chat {model}" with the request, response and usage of an inference call', async () => {
    server = await startLoopbackServer((_req, res) => sendJson(res, 200, completion('Hello!')));
    await inferenceClient(server.origin).chat.completions.create(request);
    await weft.forceFlush();

    const [span] = await receiver.waitForSpans(1);
    expect(span?.name).toBe('chat meta-llama/Llama-3.1-8B-Instruct');
    expect(span?.kind).toBe(SPAN_KIND_CLIENT);
    const port = Number(new URL(server.origin).port);
    // The whole set, as the openai instrumentation records it: one mapping for every caller, nothing of the client's own.
    expect(span?.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'weave.span.kind': 'llm',
      'gen_ai.provider.name': 'openai',
      'openai.api.type': 'chat_completions',
      'gen_ai.request.model': 'meta-llama/Llama-3.1-8B-Instruct',
      'gen_ai.request.temperature': 0.5,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }]),
      'gen_ai.response.id': 'chatcmpl-1',
      'gen_ai.response.model': 'meta-llama/Llama-3.1-8B-Instruct',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 9,
      'gen_ai.usage.output_tokens': 3,
      'llm.usage.total_tokens': 12,
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Hello!' }], finish_reason: 'stop' }]),
      'server.address': '127.0.0.1',
      'server.port': port,
    });
  });

  it('asks a stream for its usage, records it, and passes the usage chunk on to the caller', async () => {
    // weft's client asks whatever the caller did not set: the inference reference advises it, and a vLLM server
    // (the training service's kind) sends no usage unasked. Its own client's caller gets the chunk, last.
    server = await startLoopbackServer((_req, res) => {
      startSse(res);
      res.end(sseText());
    });
    const stream = await inferenceClient(server.origin).chat.completions.create({ ...request, stream: true });
    const chunks = await stream.collect();
    await weft.forceFlush();

    expect(server.requests[0]?.json).toEqual({ ...request, stream: true, stream_options: { include_usage: true } });
    expect(chunks).toEqual([chunk('Hel'), chunk('lo ✓'), chunk(null, { usage: USAGE })]);
    const [span] = await receiver.waitForSpans(1);
    expect(span?.attributes).toMatchObject({
      'gen_ai.request.stream': true,
      'gen_ai.usage.input_tokens': USAGE.prompt_tokens,
      'gen_ai.usage.output_tokens': USAGE.completion_tokens,
    });
    expect(JSON.parse(String(span?.attributes['gen_ai.output.messages']))[0].parts).toEqual([{ type: 'text', content: 'Hello ✓' }]);
  });

  it('marks the span of a rejected call as an error with its status, and never records the API key', async () => {
    server = await startLoopbackServer((_req, res) =>
      sendJson(res, 429, { error: { message: 'Concurrency limit reached for requests', type: 'rate_limit_exceeded' } }),
    );
    await expect(inferenceClient(server.origin).chat.completions.create(request, { maxRetries: 0 })).rejects.toBeInstanceOf(
      WeftRateLimitError,
    );
    await weft.forceFlush();

    const [span] = await receiver.waitForSpans(1);
    expect(span?.status.code).toBe(STATUS_ERROR);
    expect(span?.attributes).toMatchObject({ 'error.type': 'WeftRateLimitError', 'http.response.status_code': 429 });
    expect(receiver.requests.some((r) => r.body.includes(API_KEY))).toBe(false);
  });

  it('traces a training chat call the same way', async () => {
    server = await startLoopbackServer((_req, res) => sendJson(res, 200, completion('trained')));
    await trainingClient(server.origin).chat.completions.create({ ...request, model: 'wandb-artifact:///e/p/m:step3' });
    await weft.forceFlush();

    const [span] = await receiver.waitForSpans(1);
    expect(span?.name).toBe('chat wandb-artifact:///e/p/m:step3');
    expect(span?.attributes['gen_ai.request.model']).toBe('wandb-artifact:///e/p/m:step3');
    expect(span?.attributes['gen_ai.usage.output_tokens']).toBe(3);
  });

  it('makes no span when the client is told not to trace', async () => {
    server = await startLoopbackServer((_req, res) => sendJson(res, 200, completion()));
    await inferenceClient(server.origin, { project: 'team/proj', tracing: false }).chat.completions.create(request);
    await weft.forceFlush();
    expect(receiver.spans()).toEqual([]);
  });
});

describe('a stream the app stops after aborting its own signal, as the openai instrumentation records it', () => {
  // The service sends the first chunk and then waits: the app stops reading before the rest arrives.
  async function firstChunkThenWait() {
    server = await startLoopbackServer((_req, res) => {
      startSse(res);
      res.write(`data: ${JSON.stringify(chunk('Hel'))}\n\n`);
    });
    return server;
  }

  for (const stop of ['break', 'cancel()'] as const) {
    it(`fails the span when the app aborts and then leaves with ${stop}`, async () => {
      const origin = (await firstChunkThenWait()).origin;
      const controller = new AbortController();
      const stream = await inferenceClient(origin).chat.completions.create({ ...request, stream: true }, { signal: controller.signal });
      for await (const _chunk of stream) {
        controller.abort();
        if (stop === 'break') break;
        await stream.cancel();
      }
      await weft.forceFlush();
      const [span] = await receiver.waitForSpans(1);
      expect(span?.status.code).toBe(STATUS_ERROR);
      expect(span?.attributes['error.type']).toBe('AbortError');
      expect(JSON.parse(String(span?.attributes['gen_ai.output.messages']))).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'Hel' }], finish_reason: 'error' }]);
    });
  }

  it('ends the span as a success when the app leaves with break without aborting', async () => {
    const origin = (await firstChunkThenWait()).origin;
    const stream = await inferenceClient(origin).chat.completions.create({ ...request, stream: true }, { signal: new AbortController().signal });
    for await (const _chunk of stream) break;
    await weft.forceFlush();
    const [span] = await receiver.waitForSpans(1);
    expect(span?.status.code).not.toBe(STATUS_ERROR);
  });
});
