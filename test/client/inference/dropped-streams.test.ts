import { getEventListeners, setMaxListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ChatCompletions, HttpCore, InferenceClient, TrainingClient, type WeftHandle, register } from 'weft';
import { collectGarbage } from '../../helpers/gc.js';
import { type OtlpReceiver, startOtlpReceiver } from '../../helpers/otlp-receiver.js';
import { type LoopbackServer, startLoopbackServer } from './loopback-server.js';
import { API_KEY, chunk, sseText, startSse } from './support.js';

// A chat stream the app drops unread (an error path threw before the loop) holds nothing once it is collected: the
// attempt's listeners on the caller's signal and on the client's `closing`, and the connection, go with it.

let receiver: OtlpReceiver;
let weft: WeftHandle;
let server: LoopbackServer | undefined;
let cores: HttpCore[] = [];

beforeEach(async () => {
  receiver = await startOtlpReceiver();
  weft = register({ baseUrl: receiver.url, project: 'acme/bot', apiKey: 'sk-otlp-key-0000', instrumentations: [] });
});

afterEach(async () => {
  await Promise.all(cores.map((core) => core.close()));
  cores = [];
  await weft.shutdown();
  await receiver.close();
  await server?.close();
  server = undefined;
});

const streamed = { model: 'meta-llama/Llama-3.1-8B-Instruct', messages: [{ role: 'user' as const, content: 'Hi' }], stream: true as const };

type Variant = { service: 'inference' | 'training'; traced: boolean };
const variants: Variant[] = [
  { service: 'inference', traced: false },
  { service: 'inference', traced: true },
  { service: 'training', traced: false },
  { service: 'training', traced: true },
];

/** The chat resource of a service's client over its own core (whose `closing` the test watches). */
function chatClient({ service, traced }: Variant, origin: string): { core: HttpCore; completions: ChatCompletions } {
  const core = new HttpCore({ baseUrl: `${origin}/v1`, apiKey: API_KEY, maxRetries: 0 });
  cores.push(core);
  const tracing = traced ? undefined : false;
  const client =
    service === 'inference' ? new InferenceClient(core, { project: 'team/proj', tracing }) : new TrainingClient(core, { tracing });
  return { core, completions: client.chat.completions as ChatCompletions };
}

/** Makes `count` streaming calls and drops each stream unread, in a frame of its own that is gone when it returns. */
async function dropStreams(completions: ChatCompletions, count: number, signal: AbortSignal): Promise<void> {
  for (let i = 0; i < count; i++) await completions.create(streamed, { signal });
}

const abortListeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

/** Collects garbage until `done()` holds, for at most `seconds` (the caller then checks what is left); says whether it did. */
async function collectUntil(done: () => boolean, seconds = 5): Promise<boolean> {
  const deadline = Date.now() + seconds * 1000;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

describe.each(variants)('$service chat streams (traced: $traced)', (variant) => {
  it('dropped unread leave no listener on the caller signal nor on the client once collected', async () => {
    server = await startLoopbackServer((_req, res) => {
      startSse(res);
      res.end(sseText());
    });
    const { core, completions } = chatClient(variant, server.origin);
    const signal = new AbortController().signal;
    const count = 20;
    // Until they are collected the streams are live, each listening to the signal: no warning about it.
    setMaxListeners(0, signal);
    await dropStreams(completions, count, signal);

    await collectUntil(() => abortListeners(signal) === 0 && abortListeners(core.closing) === 0);
    expect({ caller: abortListeners(signal), client: abortListeners(core.closing) }).toEqual({ caller: 0, client: 0 });
    if (variant.traced) {
      // The instrumentation ends the span of a stream dropped unread at collection; releasing the body keeps that.
      await weft.forceFlush();
      expect(await receiver.waitForSpans(count)).toHaveLength(count);
    }
  });

  it('dropped while the server still sends give up their connection once collected', async () => {
    let closed = 0;
    server = await startLoopbackServer((_req, res) => {
      startSse(res);
      res.on('close', () => closed++);
      res.write(`data: ${JSON.stringify(chunk('first'))}\n\n`);
    });
    const { completions } = chatClient(variant, server.origin);
    const count = 5;
    await dropStreams(completions, count, new AbortController().signal);

    // Without the release these connections stay open until the body timeout (a minute by default).
    const released = await collectUntil(() => closed === count);
    expect(released, `${closed} of the ${count} dropped streams' connections were closed`).toBe(true);
  });

  it('being read are not cut by a collection, even when the app holds only the iterator', async () => {
    let go!: () => void;
    const gate = new Promise<void>((resolve) => {
      go = resolve;
    });
    let closedEarly = false;
    server = await startLoopbackServer(async (_req, res) => {
      startSse(res);
      res.on('close', () => {
        if (!res.writableFinished) closedEarly = true;
      });
      res.write(`data: ${JSON.stringify(chunk('Hel'))}\n\n`);
      await gate;
      res.end(`data: ${JSON.stringify(chunk('lo'))}\n\ndata: [DONE]\n\n`);
    });
    const { core, completions } = chatClient(variant, server.origin);
    const signal = new AbortController().signal;
    const iterator = (await completions.create(streamed, { signal }))[Symbol.asyncIterator]();
    const first = await iterator.next();
    await collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 50));

    expect(closedEarly, 'the connection was closed while the app was still reading').toBe(false);
    expect(abortListeners(signal)).toBe(1);
    go();
    const rest = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    expect([first.value, ...rest].map((c) => c?.choices[0]?.delta.content)).toEqual(['Hel', 'lo']);
    expect({ caller: abortListeners(signal), client: abortListeners(core.closing) }).toEqual({ caller: 0, client: 0 });
  });

  it('being read, hold one listener each on a signal the caller shares between them, and none once read', async () => {
    // Node warns of a leak past 10 listeners on one signal: tracing must not add one per stream of its own.
    let go!: () => void;
    const gate = new Promise<void>((resolve) => {
      go = resolve;
    });
    server = await startLoopbackServer(async (_req, res) => {
      startSse(res);
      res.write(`data: ${JSON.stringify(chunk('Hel'))}\n\ndata: ${JSON.stringify(chunk('lo'))}\n\n`);
      await gate;
      res.end(`data: ${JSON.stringify(chunk('!'))}\n\ndata: [DONE]\n\n`);
    });
    const { completions } = chatClient(variant, server.origin);
    const signal = new AbortController().signal;
    const iterators = [];
    for (let i = 0; i < 3; i++) {
      const iterator = (await completions.create(streamed, { signal }))[Symbol.asyncIterator]();
      await iterator.next();
      await iterator.next();
      iterators.push(iterator);
    }
    expect(abortListeners(signal)).toBe(3);
    go();
    for (const iterator of iterators) while (!(await iterator.next()).done);
    expect(abortListeners(signal)).toBe(0);
  });
});
