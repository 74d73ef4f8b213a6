import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { instrumentOpenAI, register } from 'weft';
import { HELLO, type OpenAIServer, startOpenAIServer } from '../helpers/openai-server.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// shutdown() disables the openai instrumentation it enabled; a later register() (a test suite's next case, an app
// that restarts its telemetry) must turn it back on, as the first one did.

let receiver: OtlpReceiver;
let server: OpenAIServer;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  server = await startOpenAIServer(HELLO);
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

it('traces openai calls again after shutdown() and a second register()', async () => {
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 0 });
  const ask = (model: string) => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
  const options = { baseUrl: receiver.url, project: 'acme/again', flushOnExit: false };

  const first = register(options);
  instrumentOpenAI(OpenAI);
  await ask('first');
  await first.shutdown();
  await ask('between');

  const second = register(options);
  expect(second).not.toBe(first);
  await ask('second');
  await second.shutdown();
  expect(receiver.spans().map((s) => s.name)).toEqual(['chat first', 'chat second']);
});
