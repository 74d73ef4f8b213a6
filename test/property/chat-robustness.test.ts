import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIInstrumentation, register, type WeftHandle } from 'weft';
import { StatusCodeValue } from '../../src/otlp/index.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { edgeNumber, text } from './arbitraries.js';
import { runs } from './runs.js';

/**
 * The chat mapping on random, even malformed, requests and answers, through the real `openai` package against a
 * loopback server that answers whatever it is told: the app gets exactly what the server sent (or openai's own error
 * for it), every call gives one span, every content attribute is JSON that parses (the SDK's length limit never cut
 * one mid-way), and every cut in a text is marked with the number of characters it took off.
 */

/** The SDK's attribute length limit, and a message length short enough that random text gets cut. */
const ATTRIBUTE_LIMIT = 3000;
const MESSAGE_LIMIT = 300;
const API_KEY = 'sk-weft-property-0123456789';

/** What the server answers next. */
type Answer = { status: number; body: unknown } | { status: 200; events: unknown[] };

let answer: Answer = { status: 200, body: {} };
let server: Server;
let baseURL: string;
let receiver: OtlpReceiver;
let handle: WeftHandle;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if ('events' in answer) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const event of answer.events) res.write(`data: ${JSON.stringify(event)}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  receiver = await startOtlpReceiver();
  const instrumentation = new OpenAIInstrumentation({ maxMessageLength: MESSAGE_LIMIT });
  handle = register({
    baseUrl: receiver.url,
    project: 'test/property',
    instrumentations: [instrumentation],
    flushOnExit: false,
    logger: false,
    spanLimits: { attributeValueLengthLimit: ATTRIBUTE_LIMIT },
  });
  instrumentation.manuallyInstrument(OpenAI);
});

afterAll(async () => {
  await handle?.shutdown();
  await receiver?.close();
  await new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
});

// --- random, roughly chat-shaped JSON -----------------------------------------------------------------------

/** Text, now and then long enough to be cut. */
const content = fc.oneof({ weight: 5, arbitrary: text(40) }, { weight: 1, arbitrary: text(1200) });
/** Any JSON value, with numbers at their edges (JSON has no NaN: those go as null, as openai would send them). */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  content,
  edgeNumber.map((n) => (Number.isFinite(n) ? n : null)),
  fc.constantFrom(null, true, [], {}),
);
const maybe = <T>(value: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: value }, { weight: 1, arbitrary: junk });
/** A record with some keys left out, and now and then no record at all. */
const shaped = (fields: Record<string, fc.Arbitrary<unknown>>) => maybe(fc.record(fields, { requiredKeys: [] }));

const toolCall = shaped({
  id: maybe(fc.string()),
  type: maybe(fc.constant('function')),
  index: maybe(fc.nat(3)),
  function: shaped({ name: maybe(text(10)), arguments: maybe(fc.oneof(content, fc.json({ maxDepth: 2 }))) }),
  custom: shaped({ name: maybe(text(10)), input: maybe(content) }),
});
const contentPart = shaped({
  type: maybe(fc.constantFrom('text', 'image_url', 'input_audio', 'file', 'refusal', 'other')),
  text: maybe(content),
  refusal: maybe(content),
  image_url: shaped({ url: maybe(fc.oneof(fc.webUrl(), fc.constant('data:image/png;base64,iVBORw0KGgo='))) }),
  input_audio: shaped({ data: maybe(content), format: maybe(fc.constantFrom('mp3', 'wav', 'pcm16')) }),
  file: shaped({ file_id: maybe(fc.string()), file_data: maybe(content) }),
});
const requestMessage = shaped({
  role: maybe(fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool', 'function')),
  content: fc.oneof(content, fc.array(contentPart, { maxLength: 3 }), junk),
  name: maybe(text(10)),
  refusal: maybe(content),
  tool_call_id: maybe(fc.string()),
  tool_calls: maybe(fc.array(toolCall, { maxLength: 2 })),
  function_call: shaped({ name: maybe(text(10)), arguments: maybe(content) }),
});
const requestArbitrary = fc.record(
  {
    messages: fc.oneof({ weight: 5, arbitrary: fc.array(requestMessage, { maxLength: 5 }) }, { weight: 1, arbitrary: junk }),
    tools: maybe(fc.array(shaped({ type: maybe(fc.constant('function')), function: shaped({ name: maybe(text(10)), description: maybe(content), parameters: junk }) }), { maxLength: 2 })),
    temperature: junk,
    top_p: junk,
    max_tokens: junk,
    seed: junk,
    n: maybe(fc.integer({ min: 1, max: 3 })),
    stop: maybe(fc.array(maybe(text(5)), { maxLength: 3 })),
    response_format: shaped({ type: maybe(fc.constantFrom('text', 'json_object', 'json_schema')) }),
  },
  { requiredKeys: ['messages'] },
);

const responseMessage = shaped({
  role: maybe(fc.constant('assistant')),
  content: maybe(content),
  refusal: maybe(content),
  reasoning_content: maybe(content),
  tool_calls: maybe(fc.array(toolCall, { maxLength: 2 })),
  audio: shaped({ transcript: maybe(content), data: maybe(content) }),
});
const usage = shaped({
  prompt_tokens: maybe(fc.nat()),
  completion_tokens: maybe(fc.nat()),
  total_tokens: maybe(fc.nat()),
  prompt_tokens_details: shaped({ cached_tokens: maybe(fc.nat()) }),
});
const completionBody = shaped({
  id: maybe(fc.string()),
  model: maybe(fc.string()),
  choices: maybe(fc.array(shaped({ index: maybe(fc.nat(3)), message: responseMessage, finish_reason: maybe(fc.constantFrom('stop', 'length', 'tool_calls')) }), { maxLength: 3 })),
  usage,
});
/**
 * Stream chunks; no `usage`, which weft (having asked for it) would rightly hide, no `error`, which openai throws, and
 * no null choice, on which openai 7 throws a TypeError of its own (reading its `finish_reason`), weft or no weft.
 */
const chunk = shaped({
  id: maybe(fc.string()),
  model: maybe(fc.string()),
  choices: maybe(fc.array(shaped({ index: maybe(fc.nat(3)), delta: responseMessage, finish_reason: maybe(fc.constantFrom('stop', 'length', 'tool_calls')) }), { maxLength: 2 })),
}).filter(
  (c) =>
    c !== null &&
    !(typeof c === 'object' && !Array.isArray(c) && ('usage' in c || 'error' in c)) &&
    !(Array.isArray((c as { choices?: unknown }).choices) && (c as { choices: unknown[] }).choices.some((choice) => choice == null)),
);

const answerArbitrary: fc.Arbitrary<Answer> = fc.oneof(
  { weight: 6, arbitrary: completionBody.map((body) => ({ status: 200, body })) },
  { weight: 1, arbitrary: fc.record({ status: fc.constantFrom(400, 404, 429, 500), body: maybe(fc.record({ error: shaped({ message: maybe(content), type: maybe(fc.string()) }) })) }) },
);

/**
 * A chunk as `openai` 7 hands it to the app, weft or no weft: it gives each choice a `finish_reason` (null when the
 * server sent none), copying the choice (its normalizeChatCompletionChunk, lib/chat-completions/streaming.js).
 */
function asOpenAIGivesIt(chunk: unknown): unknown {
  const choices = (chunk as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices)) return chunk;
  return { ...(chunk as object), choices: choices.map((choice) => ({ ...(choice as object), finish_reason: (choice as { finish_reason?: unknown } | null)?.finish_reason ?? null })) };
}

// --- checks -------------------------------------------------------------------------------------------------

const CONTENT_KEYS = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions', 'gen_ai.tool.definitions'];
const MARKER = /…\[weft: (\d+) more chars\]$/;

/**
 * Every string in a JSON-like value, a data: URL's payload, and the text of each of its other values (weft records a
 * text part's `String()`): the texts a recorded one may be cut from.
 */
function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    out.push(value);
    // A data: URL is recorded as a blob of its base64 payload.
    const payload = /^data:[^,]*;base64,/.exec(value);
    if (payload) out.push(value.slice(payload[0].length));
  } else if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    try {
      out.push(String(value));
    } catch {
      // An array holding an object without a prototype has no text.
    }
  }
  if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) stringsOf(item, out);
  return out;
}

/** Every cut text is a prefix of a text that was sent, and its marker counts what was cut. */
function expectMarkedCuts(recorded: unknown, sent: unknown, where: string): void {
  const originals = stringsOf(sent);
  for (const leaf of stringsOf(recorded)) {
    const cut = MARKER.exec(leaf);
    if (!cut) continue;
    const kept = leaf.slice(0, cut.index);
    const removed = Number(cut[1]);
    // A text of the request, or the JSON of a message too long even with its texts cut (kept as text).
    const from = originals.find((original) => original.length === kept.length + removed && original.startsWith(kept));
    if (!from && !leaf.startsWith('{')) throw new Error(`${where}: "${leaf.slice(0, 80)}…" is no cut of any text sent (kept ${kept.length}, marked ${removed}) in ${JSON.stringify(recorded)}`);
  }
}

/** The texts a stream's deltas add up to, per choice and field, as a reader joins them: what its span records. */
function joinedTexts(events: unknown[]): string[] {
  const joined = new Map<string, string>();
  const add = (key: string, piece: unknown) => {
    if (typeof piece === 'string') joined.set(key, (joined.get(key) ?? '') + piece);
  };
  for (const event of events) {
    const choices = (event as { choices?: unknown } | null)?.choices;
    if (!Array.isArray(choices)) continue;
    for (const choice of choices as { index?: unknown; delta?: Record<string, unknown> | null }[]) {
      const index = typeof choice?.index === 'number' ? choice.index : 0;
      const delta = choice?.delta;
      if (!delta || typeof delta !== 'object') continue;
      add(`${index} content`, delta.content);
      add(`${index} refusal`, delta.refusal);
      add(`${index} reasoning`, delta.reasoning_content || delta.reasoning);
      if (Array.isArray(delta.tool_calls)) {
        (delta.tool_calls as { index?: unknown; function?: { arguments?: unknown } | null }[]).forEach((call, position) => {
          if (!call || typeof call !== 'object') return;
          add(`${index} call ${typeof call.index === 'number' ? call.index : position}`, call.function?.arguments);
        });
      }
    }
  }
  return [...joined.values()];
}

function checkSpanContent(attributes: Record<string, unknown>, request: unknown, response: unknown): void {
  for (const [key, value] of Object.entries(attributes)) {
    if (typeof value === 'string') expect(value.length, key).toBeLessThanOrEqual(ATTRIBUTE_LIMIT);
  }
  for (const key of CONTENT_KEYS) {
    const value = attributes[key];
    if (value === undefined) continue;
    expect(typeof value, key).toBe('string');
    let parsed: unknown;
    try {
      parsed = JSON.parse(value as string);
    } catch {
      throw new Error(`${key} is not JSON: ${String(value).slice(0, 200)}`);
    }
    expect(Array.isArray(parsed), key).toBe(true);
    // Each message within maxMessageLength, as its JSON (JSON.stringify gives back the text it parsed from).
    for (const item of parsed as unknown[]) {
      const length = JSON.stringify(item).length;
      if (length > MESSAGE_LIMIT) throw new Error(`${key}: a message of ${length} characters, over ${MESSAGE_LIMIT}: ${JSON.stringify(item).slice(0, 300)}`);
    }
    expectMarkedCuts(parsed, key === 'gen_ai.output.messages' ? response : request, key);
  }
}

describe('the chat mapping on random requests and answers', () => {
  it('never changes what the app gets, and records one span of valid, marked, limited content per call', async () => {
    const client = new OpenAI({ baseURL, apiKey: API_KEY, maxRetries: 0 });
    let calls = 0;
    await fc.assert(
      fc.asyncProperty(requestArbitrary, fc.boolean(), answerArbitrary, fc.array(chunk, { maxLength: 5 }), async (request, stream, reply, events) => {
        // What an earlier (failed) run left is sent first, so that this run counts its own span.
        await handle.forceFlush();
        const before = receiver.spans().length;
        const body = { model: 'fuzz', ...request } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming;
        if (stream) {
          answer = { status: 200, events };
          const read: unknown[] = [];
          const result = await client.chat.completions.create({ ...body, stream: true } as unknown as OpenAI.ChatCompletionCreateParamsStreaming);
          for await (const c of result) read.push(c);
          expect(JSON.stringify(read)).toBe(JSON.stringify(events.map(asOpenAIGivesIt)));
        } else {
          answer = reply;
          const sent = 'body' in reply ? reply.body : undefined;
          if (reply.status === 200) {
            const result = await client.chat.completions.create(body);
            expect(JSON.stringify(result)).toBe(JSON.stringify(sent));
          } else {
            const error = await client.chat.completions.create(body).then(
              () => undefined,
              (e: unknown) => e,
            );
            expect(error).toBeInstanceOf(OpenAI.APIError);
            expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(reply.status);
          }
        }
        calls += 1;
        await handle.forceFlush();
        const spans = await receiver.waitForSpans(before + 1);
        expect(spans.length - before, 'one span per call').toBe(1);
        const span = spans.at(-1)!;
        expect(span.name).toBe('chat fuzz');
        if (!stream && reply.status !== 200) expect(span.status.code).toBe(StatusCodeValue.ERROR);
        checkSpanContent(span.attributes, request, stream ? [events, joinedTexts(events)] : 'body' in reply ? reply.body : undefined);
      }),
      {
        ...runs(500),
        // A stream whose short texts are mostly escapes: cut (legitimately) to nothing but their marker.
        examples: [
          [
            { messages: [] },
            true,
            { status: 200, body: {} },
            [
              { choices: [{ index: 1, delta: { content: '\ud800\u0000\ud800', refusal: '\u0000\u0000', reasoning_content: '\ud800"' } }] },
              {
                choices: [
                  {
                    index: 1,
                    delta: { content: ' \u0000\u0000  "', refusal: ' \ud800', tool_calls: [{ index: 1, function: { name: '\ud800"  𐀀 " 😀\u001f' } }, { id: ' ' }] },
                    finish_reason: ' 𐀀𐀀𝄞\ud800   ',
                  },
                ],
              },
            ],
          ],
        ],
      },
    );
    expect(calls).toBeGreaterThan(0);
  });
});
