import { trace } from '@opentelemetry/api';
import OpenAIv6 from 'openai-v6';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceChatCompletion } from 'weft';
import { HELLO } from '../helpers/openai-server.js';
import { API_KEY, type Harness, startHarness } from './harness.js';

/**
 * Chunks that are not the SDK's plain parsed objects pass through a traced stream as what they are: frozen ones (as a
 * cache of replies might keep them) untouched, weft hiding what it asked for without writing to them; instances of a
 * class as the same instances, the usage weft asked for taken out in place.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('a traced stream of chunks the app owns', () => {
  it('leaves frozen chunks as they are and still hides the usage weft asked for', async () => {
    h.server.reply(HELLO);
    // openai 6 is not patched here, so the only span is the one traceChatCompletion makes.
    const upstream = new OpenAIv6({ baseURL: h.server.baseURL, apiKey: API_KEY, maxRetries: 0 });
    const owned: unknown[] = [];
    async function* frozenChunks(request: Parameters<typeof upstream.chat.completions.create>[0]) {
      const stream = await upstream.chat.completions.create({ ...request, stream: true });
      for await (const chunk of stream) {
        owned.push(Object.freeze(chunk));
        yield chunk;
      }
    }
    const request = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hi' }], stream: true as const };
    const stream = traceChatCompletion(trace.getTracer('app'), request, (sent) => frozenChunks(sent as typeof request));

    const seen: unknown[] = [];
    for await (const chunk of stream) seen.push(chunk);

    expect(seen).toHaveLength(5);
    for (const chunk of seen) expect(chunk).not.toHaveProperty('usage');
    expect(owned).toHaveLength(6);
    for (const chunk of owned.slice(0, 5)) expect(chunk).toHaveProperty('usage', null);
    const [span] = await h.spans(1);
    expect(span?.status.code).toBe(0);
    expect(span?.attributes['llm.usage.total_tokens']).toBe(15);
  });

  it('keeps chunks of a class as the same instances, without the usage weft asked for', async () => {
    h.server.reply(HELLO);
    const upstream = new OpenAIv6({ baseURL: h.server.baseURL, apiKey: API_KEY, maxRetries: 0 });
    class Chunk {
      constructor(fields: object) {
        Object.assign(this, fields);
      }
      describe(): string {
        return `chunk ${(this as { id?: string }).id}`;
      }
    }
    const made: Chunk[] = [];
    async function* classChunks(request: Parameters<typeof upstream.chat.completions.create>[0]) {
      const stream = await upstream.chat.completions.create({ ...request, stream: true });
      for await (const chunk of stream) {
        made.push(new Chunk(chunk));
        yield made.at(-1) as Chunk;
      }
    }
    const request = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hi' }], stream: true as const };
    const stream = traceChatCompletion(trace.getTracer('app'), request, (sent) => classChunks(sent as typeof request));

    const seen: unknown[] = [];
    for await (const chunk of stream) seen.push(chunk);

    expect(made).toHaveLength(6);
    expect(seen).toEqual(made.slice(0, 5));
    seen.forEach((chunk, i) => {
      expect(chunk).toBe(made[i]);
      expect(chunk).not.toHaveProperty('usage');
      expect((chunk as Chunk).describe()).toBe('chunk chatcmpl-hello');
    });
    const [span] = await h.spans(1);
    expect(span?.attributes['llm.usage.total_tokens']).toBe(15);
  });
});
