import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OpenAIInstrumentation, op, register, type WeftHandle } from 'weft';
import { type OpenAIServer, startOpenAIServer } from '../helpers/openai-server.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

let receiver: OtlpReceiver;
let server: OpenAIServer;
let weft: WeftHandle;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  server = await startOpenAIServer();
  const instrumentation = new OpenAIInstrumentation();
  weft = register({ baseUrl: receiver.url, project: 'test/non-global', global: false, instrumentations: [instrumentation], flushOnExit: false });
  instrumentation.manuallyInstrument(OpenAI);
});
afterAll(async () => {
  await weft.shutdown();
  await server.close();
  await receiver.close();
});

it('nests a chat span under the op that made the call, with register({ global: false })', async () => {
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 0 });
  const ask = op(async function ask() {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  });
  const before = receiver.spans().length;
  await ask();
  await weft.forceFlush();

  const spans = (await receiver.waitForSpans(before + 2)).slice(before);
  const parent = spans.find((s) => s.name === 'ask');
  const chat = spans.find((s) => s.name === 'chat gpt-4o-mini');
  expect(chat?.parentSpanId).toBe(parent?.spanId);
  expect(chat?.traceId).toBe(parent?.traceId);
});

it('keeps tracing chat calls when another OpenAIInstrumentation is constructed later and never registered', async () => {
  // Enabled by its constructor, it has no tracer provider: its tracer is the global no-op one here.
  const stray = new OpenAIInstrumentation();
  try {
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 0 });
    const askAgain = op(function askAgain() {
      return client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    });
    const before = receiver.spans().length;
    await askAgain();
    // The chat span ends before the op's: once the op's span is exported, so is the chat span, if there is one.
    await weft.forceFlush();
    const spans = (await receiver.waitForSpans(before + 1)).slice(before);
    expect(spans.map((s) => s.name).sort()).toEqual(['askAgain', 'chat gpt-4o-mini']);
  } finally {
    stray.disable();
  }
});
