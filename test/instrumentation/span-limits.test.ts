import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIInstrumentation, weftSpanProcessor } from 'weft';
import { HELLO, type OpenAIServer, startOpenAIServer } from '../helpers/openai-server.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

/**
 * An app with its own tracer provider, whose `spanLimits` set in code cap attribute length: the environment does
 * not show that limit, and the SDK would cut longer JSON mid-way.
 */

const LIMIT = 1000;
let receiver: OtlpReceiver;
let server: OpenAIServer;
let provider: BasicTracerProvider;
let disable: () => void;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  server = await startOpenAIServer({ ...HELLO, choices: [{ content: 'é'.repeat(5000), finishReason: 'stop' }] });
  provider = new BasicTracerProvider({
    spanLimits: { attributeValueLengthLimit: LIMIT },
    spanProcessors: [weftSpanProcessor({ baseUrl: receiver.url, project: 'acme/limits' })],
  });
  const instrumentation = new OpenAIInstrumentation();
  disable = registerInstrumentations({ tracerProvider: provider, instrumentations: [instrumentation] });
  instrumentation.manuallyInstrument(OpenAI);
});
afterAll(async () => {
  disable();
  await provider.shutdown();
  await server.close();
  await receiver.close();
});

describe('a provider with its own attribute length limit', () => {
  it('gets content JSON that fits the limit and still parses, with each cut marked', async () => {
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'sk-limits', maxRetries: 0 });
    await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'ß'.repeat(3000) },
        { role: 'user', content: 'x'.repeat(3000) },
      ],
    });
    await provider.forceFlush();
    const [span] = await receiver.waitForSpans(1);
    for (const key of ['gen_ai.system_instructions', 'gen_ai.input.messages', 'gen_ai.output.messages']) {
      const value = span?.attributes[key];
      expect(typeof value).toBe('string');
      expect((value as string).length).toBeLessThanOrEqual(LIMIT);
      expect(JSON.stringify(JSON.parse(value as string))).toMatch(/…\[weft: \d+ more chars\]/);
    }
  });
});
