import type OpenAI from 'openai';
import { LengthFinishReasonError } from 'openai/error';
import { makeParseableResponseFormat } from 'openai/lib/parser';
import OpenAIv4 from 'openai-v4';
import { LengthFinishReasonError as LengthFinishReasonErrorV4 } from 'openai-v4/error';
import { makeParseableResponseFormat as makeParseableResponseFormatV4 } from 'openai-v4/lib/parser';
import OpenAIv6 from 'openai-v6';
import { LengthFinishReasonError as LengthFinishReasonErrorV6 } from 'openai-v6/error';
import { makeParseableResponseFormat as makeParseableResponseFormatV6 } from 'openai-v6/lib/parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusCodeValue } from '../../src/otlp/index.js';
import { HELLO } from '../helpers/openai-server.js';
import { HELLO_CUT_SHORT, HELLO_RESPONSE, HELLO_USAGE, HI_INPUT, withContentParsed } from './expected-spans.js';
import { API_KEY, type Harness, startHarness } from './harness.js';

/**
 * openai's streaming helpers, `chat.completions.stream()` and `runTools({ stream: true })`, which call the traced
 * `create()` with their own AbortController and read its stream for the app: in openai 7 and 6, and on openai 4's
 * `beta.chat.completions` (patched automatically too: openai-older-majors.test.ts).
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  h.instrumentation.manuallyInstrument(OpenAIv6);
});

/** An openai 4 client (its module patched by hand), its `beta` where the tests look for the helpers. */
function openAI4Client(): HelperClient {
  h.instrumentation.manuallyInstrument(OpenAIv4);
  return new OpenAIv4({ baseURL: h.server.baseURL, apiKey: API_KEY, maxRetries: 0 }).beta as unknown as HelperClient;
}
afterAll(async () => {
  await h.close();
});

const USER_HI = [{ role: 'user' as const, content: 'hi' }];
const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    function: () => 'sunny',
    parse: JSON.parse,
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};

// The helpers as the tests use them, typed once for both majors (their own types differ in detail).
interface Runner extends AsyncIterable<unknown> {
  abort(): void;
  finalChatCompletion(): Promise<unknown>;
  toReadableStream(): ReadableStream;
}
interface HelperClient {
  chat: { completions: { stream(body: object): Runner; runTools(body: object): Runner } };
}
const majors = [
  {
    name: 'openai 7',
    client: () => h.client() as unknown as HelperClient,
    LengthError: LengthFinishReasonError,
    parseable: makeParseableResponseFormat,
  },
  {
    name: 'openai 6',
    client: () => new OpenAIv6({ baseURL: h.server.baseURL, apiKey: API_KEY, maxRetries: 0 }) as unknown as HelperClient,
    LengthError: LengthFinishReasonErrorV6,
    parseable: makeParseableResponseFormatV6,
  },
  {
    name: 'openai 4 (beta helpers)',
    client: openAI4Client,
    LengthError: LengthFinishReasonErrorV4,
    parseable: makeParseableResponseFormatV4,
  },
];
const helpers = [
  { helper: 'chat.completions.stream()', start: (client: HelperClient) => client.chat.completions.stream({ model: 'gpt-4o-mini', messages: USER_HI }) },
  {
    helper: 'chat.completions.runTools({ stream: true })',
    start: (client: HelperClient) => client.chat.completions.runTools({ model: 'gpt-4o-mini', messages: USER_HI, stream: true, tools: [WEATHER_TOOL] }),
  },
];

/** What the app sees of a helper it leaves after two chunks: the chunks, and what finalChatCompletion() then says. */
async function leaveAfterTwoChunks(runner: Runner): Promise<{ chunks: number; final: string }> {
  let chunks = 0;
  for await (const _chunk of runner) {
    if (++chunks === 2) break;
  }
  const final = await runner.finalChatCompletion().then(
    () => 'completed',
    (error: Error) => `${error.constructor.name}: ${error.message}`,
  );
  return { chunks, final };
}

/** The same, with weft's instrumentation disabled: what the app sees without weft. */
async function withoutWeft<T>(run: () => Promise<T>): Promise<T> {
  h.instrumentation.disable();
  try {
    return await run();
  } finally {
    h.instrumentation.enable();
  }
}

describe('openai 4: beta.chat.completions, patched with the module', () => {
  it('is unpatched by disable() and patched again by enable(), with chat.completions', () => {
    openAI4Client();
    const helpers = Object.getPrototypeOf(new OpenAIv4({ apiKey: API_KEY }).beta.chat.completions) as Record<string, { __wrapped?: boolean }>;
    const wrapped = () => ['stream', 'runTools', 'runFunctions'].map((name) => helpers[name]?.__wrapped === true);
    expect(wrapped()).toEqual([true, true, true]);
    h.instrumentation.disable();
    expect(wrapped()).toEqual([false, false, false]);
    h.instrumentation.enable();
    expect(wrapped()).toEqual([true, true, true]);
  });
});

for (const { name, client, LengthError, parseable } of majors) {
  describe(`${name}: an app that leaves a streaming helper`, () => {
    for (const { helper, start } of helpers) {
      it(`with break, mid-stream, ends the span of ${helper} with what was received, not as failed`, async () => {
        h.server.reply({ ...HELLO, hangAfterChunks: 2 });
        const without = await withoutWeft(() => leaveAfterTwoChunks(start(client())));
        const seen = await leaveAfterTwoChunks(start(client()));
        expect(seen).toEqual(without);

        const [span] = await h.spans(1);
        expect(span?.status.code).toBe(StatusCodeValue.UNSET);
        expect(span?.events).toEqual([]);
        expect(withContentParsed(span!.attributes)).toMatchObject(HELLO_CUT_SHORT);
        expect(span?.attributes['error.type']).toBeUndefined();
      });
    }

    it('with break at the last chunk, once the helper has read the whole response, ends the span with all of the answer', async () => {
      // The helper aborts its request on break: an abort that stopped no part of the answer (only the usage chunk
      // weft asked for, still to come, which the span goes without).
      h.server.reply(HELLO);
      const runner = client().chat.completions.stream({ model: 'gpt-4o-mini', messages: USER_HI });
      for await (const event of runner) {
        if ((event as { choices?: { finish_reason?: string | null }[] }).choices?.[0]?.finish_reason) break;
      }
      const [span] = await h.spans(1);
      expect(span?.status.code).toBe(StatusCodeValue.UNSET);
      expect(span?.events).toEqual([]);
      expect(withContentParsed(span!.attributes)).toMatchObject({
        ...HELLO_RESPONSE,
        'gen_ai.output.messages': [{ role: 'assistant', parts: [{ type: 'text', content: 'Hello there!' }], finish_reason: 'stop' }],
      });
    });

    it('by cancelling the reader of runner.toReadableStream() ends the span as left, not as failed', async () => {
      h.server.reply({ ...HELLO, hangAfterChunks: 2 });
      const reader = client().chat.completions.stream({ model: 'gpt-4o-mini', messages: USER_HI }).toReadableStream().getReader();
      await reader.read();
      await reader.read();
      await reader.cancel();
      const [span] = await h.spans(1);
      expect(span?.status.code).toBe(StatusCodeValue.UNSET);
      expect(withContentParsed(span!.attributes)).toMatchObject(HELLO_CUT_SHORT);
    });

    it('by calling runner.abort() itself ends the span as aborted', async () => {
      h.server.reply({ ...HELLO, hangAfterChunks: 2 });
      const runner = client().chat.completions.stream({ model: 'gpt-4o-mini', messages: USER_HI });
      let chunks = 0;
      const failure = await (async () => {
        for await (const _chunk of runner) if (++chunks === 2) runner.abort();
      })().catch((error: unknown) => error);
      expect((failure as Error).constructor.name).toBe('APIUserAbortError');

      const [span] = await h.spans(1);
      expect(span?.status.code).toBe(StatusCodeValue.ERROR);
      expect(span?.events.map((e) => e.name)).toEqual(['exception']);
      expect(withContentParsed(span!.attributes)).toMatchObject({ ...HELLO_CUT_SHORT, 'error.type': 'AbortError' });
    });

    it('after the whole response came records all of it, under one span per call', async () => {
      h.server.reply(HELLO);
      const runner = client().chat.completions.stream({ model: 'gpt-4o-mini', messages: USER_HI });
      const final = (await runner.finalChatCompletion()) as OpenAI.ChatCompletion;
      expect(final.choices[0]?.message.content).toBe('Hello there!');
      const spans = await h.spans(1);
      expect(spans).toHaveLength(1);
      expect(withContentParsed(spans[0]!.attributes)).toMatchObject({ 'gen_ai.input.messages': HI_INPUT, 'llm.usage.total_tokens': 15 });
    });
  });
  describe(`${name}: a streaming helper asked for structured output`, () => {
    // As openai's zodResponseFormat() makes it: a format the helper parses, so that it throws at finish_reason "length".
    const ANSWER_FORMAT = parseable(
      {
        type: 'json_schema',
        json_schema: { name: 'answer', strict: true, schema: { type: 'object', properties: { answer: { type: 'number' } } } },
      },
      (content) => JSON.parse(content) as unknown,
    );
    const CUT_AT_MAX_TOKENS = { ...HELLO, choices: [{ content: ['{"answer":', '4'], finishReason: 'length' }] };

    it('fails as without weft when the answer is cut at max_tokens, and the span still has the usage', async () => {
      const ask = () => client().chat.completions.stream({ model: 'gpt-4o-mini', messages: USER_HI, response_format: ANSWER_FORMAT });
      h.server.reply(CUT_AT_MAX_TOKENS);
      const without = await withoutWeft(() => ask().finalChatCompletion().catch((error: unknown) => error));
      const runner = ask();
      const failure = await runner.finalChatCompletion().catch((error: unknown) => error);
      // openai's own error, as the helper threw it.
      expect(failure).toBeInstanceOf(LengthError);
      expect(failure).toEqual(without);

      // The request succeeded; the helper's parse of it failed: the span, the request's, is not failed.
      const [span] = await h.spans(1);
      expect(span?.status.code).toBe(StatusCodeValue.UNSET);
      expect(withContentParsed(span!.attributes)).toEqual({
        ...h.common(),
        'gen_ai.request.stream': true,
        'gen_ai.output.type': 'json',
        'gen_ai.input.messages': HI_INPUT,
        'gen_ai.response.time_to_first_chunk': expect.any(Number),
        ...HELLO_RESPONSE,
        'gen_ai.response.finish_reasons': ['length'],
        ...HELLO_USAGE,
        'gen_ai.output.messages': [{ role: 'assistant', parts: [{ type: 'text', content: '{"answer":4' }], finish_reason: 'length' }],
      });
    });
  });
}
