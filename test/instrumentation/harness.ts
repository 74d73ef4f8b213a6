import OpenAI from 'openai';
import { OpenAIInstrumentation, type OpenAIInstrumentationConfig, register, type WeftHandle } from 'weft';
import type { DecodedSpan } from '../../src/otlp/index.js';
import { type OpenAIServer, startOpenAIServer } from '../helpers/openai-server.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

/** An API key that must never appear in a span. */
export const API_KEY = 'sk-weft-test-0123456789abcdef';

export interface Harness {
  receiver: OtlpReceiver;
  server: OpenAIServer;
  instrumentation: OpenAIInstrumentation;
  handle: WeftHandle;
  /** A real `openai` client (7.x) pointed at the loopback server, without retries. */
  client(options?: ConstructorParameters<typeof OpenAI>[0]): OpenAI;
  /** Flushes and returns the spans exported since the last call, once at least `count` arrived. */
  spans(count: number): Promise<DecodedSpan[]>;
  /** The attributes every chat span to the loopback server has. */
  common(model?: string): Record<string, unknown>;
  close(): Promise<void>;
}

/**
 * One registration per test file (register() is once per process): the OTLP receiver, the loopback OpenAI
 * server, and weft's OpenAI instrumentation enabled through register() and applied to the ESM copy of `openai`
 * the tests import (vitest loads it natively, where no loader hook is installed).
 */
export async function startHarness(config: OpenAIInstrumentationConfig = {}): Promise<Harness> {
  const receiver = await startOtlpReceiver();
  const server = await startOpenAIServer();
  const instrumentation = new OpenAIInstrumentation(config);
  const handle = register({
    baseUrl: receiver.url,
    project: 'test/instrumentation',
    instrumentations: [instrumentation],
    flushOnExit: false,
  });
  instrumentation.manuallyInstrument(OpenAI);
  let seen = 0;
  return {
    receiver,
    server,
    instrumentation,
    handle,
    client: (options) => new OpenAI({ baseURL: server.baseURL, apiKey: API_KEY, maxRetries: 0, ...options }),
    async spans(count) {
      await handle.forceFlush();
      const all = await receiver.waitForSpans(seen + count);
      const fresh = all.slice(seen);
      seen = all.length;
      return fresh;
    },
    common: (model = 'gpt-4o-mini') => ({
      'gen_ai.operation.name': 'chat',
      'weave.span.kind': 'llm',
      'gen_ai.provider.name': 'openai',
      'openai.api.type': 'chat_completions',
      'gen_ai.request.model': model,
      'server.address': '127.0.0.1',
      'server.port': server.port,
    }),
    async close() {
      await handle.shutdown();
      await server.close();
      await receiver.close();
    },
  };
}

/** Parses a JSON-string attribute. */
export function json(value: unknown): unknown {
  if (typeof value !== 'string') throw new Error(`expected a JSON string attribute, got ${typeof value}`);
  return JSON.parse(value);
}
