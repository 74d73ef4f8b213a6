import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'weft';
import { StatusCodeValue } from '../../src/otlp/index.js';
import { collectGarbage } from '../helpers/gc.js';
import { HELLO } from '../helpers/openai-server.js';
import { API_KEY, type Harness, json, startHarness } from './harness.js';

/**
 * How long a traced stream lives: its span must end when the app is done with it, not when the garbage
 * collector happens to take the stream object while the app is still reading it.
 */

let h: Harness;
let clients: Client[] = [];
beforeAll(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});
afterAll(async () => {
  await h.close();
});

function weftClient(): Client {
  const client = new Client({ apiKey: API_KEY, baseUrl: h.server.baseURL, inferenceBaseUrl: h.server.baseURL, project: 'team/proj' });
  clients.push(client);
  return client;
}

const REQUEST = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hi' }], stream: true as const };

/** Reads the rest of an iterator into an array. */
async function rest<T>(iterator: AsyncIterator<T>): Promise<T[]> {
  const out: T[] = [];
  for (let result = await iterator.next(); !result.done; result = await iterator.next()) out.push(result.value);
  return out;
}

describe('a stream the app is still reading', () => {
  it('of the weft client is not ended by the garbage collector, and gives the usage chunk the service sends', async () => {
    h.server.reply({ ...HELLO, usageUnasked: true });
    // Only the iterator is kept, as in `for await (const chunk of await create(...))`.
    const iterator = (await weftClient().inference.chat.completions.create(REQUEST))[Symbol.asyncIterator]();
    const first = await iterator.next();
    await collectGarbage();
    const chunks = [first.value, ...(await rest(iterator))];

    expect(chunks.map((chunk) => chunk?.choices.length)).toEqual([1, 1, 1, 1, 1, 0]);
    const [span] = await h.spans(1);
    expect(span?.attributes['llm.usage.total_tokens']).toBe(15);
    expect(json(span?.attributes['gen_ai.output.messages'])).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Hello there!' }], finish_reason: 'stop' },
    ]);
  });

  it('of openai is not ended by the garbage collector, and never shows the usage chunk weft asked for', async () => {
    h.server.reply(HELLO);
    const iterator = (await h.client().chat.completions.create(REQUEST))[Symbol.asyncIterator]();
    const first = await iterator.next();
    await collectGarbage();
    const chunks = [first.value, ...(await rest(iterator))];

    expect(chunks).toHaveLength(5);
    for (const chunk of chunks) expect(chunk?.choices).toHaveLength(1);
    const [span] = await h.spans(1);
    expect(span?.attributes['llm.usage.total_tokens']).toBe(15);
    expect(json(span?.attributes['gen_ai.output.messages'])).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Hello there!' }], finish_reason: 'stop' },
    ]);
  });
});

describe('a weft client stream the app cancels', () => {
  it('ends its span with what was received when cancelled mid-iteration', async () => {
    h.server.reply({ ...HELLO, hangAfterChunks: 2 });
    const exportedBefore = h.receiver.spans().length;
    const stream = await weftClient().inference.chat.completions.create(REQUEST);
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.next();
    await stream.cancel();

    // Flushed right away: the span must have ended with cancel(), not at some later read or collection.
    await h.handle.forceFlush();
    expect(h.receiver.spans()).toHaveLength(exportedBefore + 1);
    const [span] = await h.spans(1);
    expect(span?.status.code).toBe(StatusCodeValue.UNSET);
    expect(span?.attributes['gen_ai.response.id']).toBe('chatcmpl-hello');
    expect(json(span?.attributes['gen_ai.output.messages'])).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Hello' }], finish_reason: 'error' },
    ]);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('ends its span when cancelled before it is read', async () => {
    h.server.reply({ ...HELLO, hangAfterChunks: 2 });
    const stream = await weftClient().inference.chat.completions.create(REQUEST);
    await stream.cancel();
    const [span] = await h.spans(1);
    expect(span?.status.code).toBe(StatusCodeValue.UNSET);
    expect(span?.attributes['gen_ai.request.stream']).toBe(true);
  });
});

describe('a stream the app keeps after its span ended', () => {
  // As openai 6 does, through the listener it leaves on a signal the app passes to every call.
  it('keeps nothing of the request weft recorded', async () => {
    h.server.reply(HELLO);
    let messages: { role: 'user'; content: string }[] | undefined = [{ role: 'user', content: 'hi' }];
    const sent = new WeakRef(messages);
    const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true });
    messages = undefined;
    for await (const _chunk of stream) break;
    await h.spans(1);
    await collectGarbage();

    expect(stream).toBeDefined();
    expect(sent.deref()).toBeUndefined();
  });
});
