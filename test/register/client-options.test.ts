import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIInstrumentation, register, type WeftHandle } from 'weft';
import { HELLO, type OpenAIServer, startOpenAIServer } from '../helpers/openai-server.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// One config object for register() and new Client(): the client's own options are not refused, and where they say
// the platform's chat services are, chat tracing takes it, as it takes WEFT_INFERENCE_BASE_URL.
let receiver: OtlpReceiver;
let server: OpenAIServer;
let weft: WeftHandle;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  server = await startOpenAIServer(HELLO);
  const instrumentation = new OpenAIInstrumentation();
  const shared = { baseUrl: receiver.url, project: 'acme/shared', inferenceBaseUrl: server.baseURL, timeoutMs: 5_000, maxRetries: 1 };
  weft = register({ ...shared, instrumentations: [instrumentation], flushOnExit: false });
  instrumentation.manuallyInstrument(OpenAI);
});
afterAll(async () => {
  await weft.shutdown();
  await server.close();
  await receiver.close();
});

describe('register() given the inference service in a config object shared with new Client()', () => {
  it('neither asks that service for stream usage nor hides it, as it sends usage unasked, and records it', async () => {
    server.reply({ ...HELLO, usageUnasked: true });
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'sk-shared-0000', maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(server.requests.at(-1)?.body).not.toHaveProperty('stream_options');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: 15 } });
    await weft.forceFlush();
    const span = receiver.spans().find((s) => s.name === 'chat gpt-4o-mini');
    expect(span?.attributes['llm.usage.total_tokens']).toBe(15);
  });
});
