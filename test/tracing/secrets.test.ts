import OpenAI from 'openai';
import { instrumentOpenAI, op } from 'weft';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type OpenAIServer, startOpenAIServer } from '../helpers/openai-server.js';
import { startHarness, type TracingHarness } from './harness.js';

const KEY = 'sk-live-recognisable-key-0042';
let h: TracingHarness;
let server: OpenAIServer;

beforeAll(async () => {
  h = await startHarness();
  server = await startOpenAIServer({ status: 401, error: { message: `Incorrect API key provided: ${KEY}.`, code: 'invalid_api_key' } });
});
afterAll(async () => {
  await server.close();
  await h.close();
});

it("keeps a key that the SDK's error quotes out of the op span around the failed call", async () => {
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: KEY, maxRetries: 0 });
  instrumentOpenAI(client);
  const ask = op(async function ask(question: string) {
    return client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: question }] });
  });

  let thrown: unknown;
  const spans = await h.capture(() => ask('hello').catch((error: unknown) => (thrown = error)));

  // The app still gets the error exactly as the SDK wrote it; only what weft records is cleaned.
  expect(String((thrown as Error).message)).toContain(KEY);
  expect(spans.map((s) => s.name).sort()).toEqual(['ask', 'chat m']);
  const recorded = JSON.stringify(spans, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
  expect(recorded).toContain('[REDACTED]');
  expect(recorded).not.toContain(KEY);
});
