import OpenAIv4 from 'openai-v4';
import OpenAIv4First from 'openai-v4-0';
import OpenAIv6 from 'openai-v6';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instrumentOpenAI, SUPPORTED_OPENAI_VERSIONS } from 'weft';
import { type DecodedSpan, StatusCodeValue } from '../../src/otlp/index.js';
import { HELLO } from '../helpers/openai-server.js';
import { HELLO_CUT_SHORT, HELLO_OUTPUT, HELLO_RESPONSE, HELLO_USAGE, HI_INPUT, STREAMED_HI, withContentParsed } from './expected-spans.js';
import { API_KEY, type Harness, json, startHarness } from './harness.js';

/**
 * Older majors, installed under other names (`openai-v4`, `openai-v6`), so the automatic hook (which matches
 * the name `openai`) cannot see them: they are patched by hand, the way a bundled app would.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  instrumentOpenAI(OpenAIv4);
  instrumentOpenAI(OpenAIv4First);
  h.instrumentation.manuallyInstrument(OpenAIv6);
});
afterAll(async () => {
  await h.close();
});

const USER_HI = [{ role: 'user' as const, content: 'hi' }];

// The calls the tests make, typed once for both majors (their own types differ in detail).
interface Completion {
  id: string;
  choices: { message: { content: string | null } }[];
}
/** A `Stream` of the SDK: 4.0.0's has neither `tee()` nor `toReadableStream()`. */
type SdkStream = AsyncIterable<{ choices: { delta: { content?: string | null } }[] }> & {
  controller: AbortController;
  tee?: () => [AsyncIterable<unknown>, AsyncIterable<unknown>];
  toReadableStream?: () => ReadableStream;
};
interface ChatClient {
  chat: {
    completions: {
      create(body: object): Promise<SdkStream & Completion> & {
        withResponse(): Promise<{ data: SdkStream & Completion; response: Response }>;
        asResponse(): Promise<Response>;
      };
    };
  };
}

const v4 = (baseURL = h.server.baseURL) => new OpenAIv4({ baseURL, apiKey: API_KEY, maxRetries: 0 });
// 4.0.0, the first release of the range: its resources keep their client as `client`, not `_client`.
const v4First = (baseURL = h.server.baseURL) => new OpenAIv4First({ baseURL, apiKey: API_KEY, maxRetries: 0 });
const v6 = (baseURL = h.server.baseURL) => new OpenAIv6({ baseURL, apiKey: API_KEY, maxRetries: 0 });
// `readable`: whether the major's Stream has toReadableStream() (4.0.0's has not).
const majors = [
  { name: 'openai 4.0.0', make: (baseURL?: string) => v4First(baseURL) as unknown as ChatClient, readable: false },
  { name: 'openai 4', make: (baseURL?: string) => v4(baseURL) as unknown as ChatClient, readable: true },
  { name: 'openai 6', make: (baseURL?: string) => v6(baseURL) as unknown as ChatClient, readable: true },
];

/** What every streamed call of USER_HI records before its response. */
const streamedHi = (): Record<string, unknown> => ({ ...h.common(), ...STREAMED_HI });

async function chunksOf(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const chunks: unknown[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

it('declares every major from 4 to 7 as supported', () => {
  expect(SUPPORTED_OPENAI_VERSIONS).toEqual(['>=4.0.0 <8']);
});

for (const { name, make, readable } of majors) {
  describe(name, () => {
    it('traces a non-streamed call', async () => {
      h.server.reply(HELLO);
      const completion = await make().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI });
      expect(completion.choices[0]?.message.content).toBe('Hello there!');
      const [span] = await h.spans(1);
      expect(span?.name).toBe('chat gpt-4o-mini');
      expect(span?.attributes).toEqual({
        ...h.common(),
        'gen_ai.input.messages': JSON.stringify(HI_INPUT),
        ...HELLO_RESPONSE,
        ...HELLO_USAGE,
        'gen_ai.output.messages': JSON.stringify(HELLO_OUTPUT),
      });
    });

    it('traces a stream with usage, hiding the usage chunk it asked for', async () => {
      h.server.reply(HELLO);
      const stream = await make().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
      const chunks: unknown[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks).toHaveLength(5);
      expect(chunks.some((c) => 'usage' in (c as object))).toBe(false);
      const [span] = await h.spans(1);
      expect(span?.attributes['llm.usage.total_tokens']).toBe(15);
      expect(json(span?.attributes['gen_ai.output.messages'])).toEqual(HELLO_OUTPUT);
    });

    it('gives the result of each step as the SDK does, value before done, on a chunk it copied to hide usage: null', async () => {
      h.server.reply(HELLO);
      const stream = await make().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
      const iterator = stream[Symbol.asyncIterator]();
      const first = await iterator.next();
      expect(Object.keys(first)).toEqual(['value', 'done']);
      expect('usage' in (first.value as object)).toBe(false);
      await iterator.return?.();
      await h.spans(1);
    });

    it('observes the iterator the app reads first, when it takes two of one stream', async () => {
      h.server.reply(HELLO);
      const stream = await make().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
      const taken = stream[Symbol.asyncIterator]();
      const read = stream[Symbol.asyncIterator]();
      const chunks: unknown[] = [];
      for (let step = await read.next(); !step.done; step = await read.next()) chunks.push(step.value);
      // As without weft: the content chunks alone, and the SDK's own error for the iterator taken first.
      expect(chunks).toHaveLength(5);
      expect(chunks.some((c) => 'usage' in (c as object))).toBe(false);
      const late = await taken.next().then(
        () => undefined,
        (error: unknown) => error,
      );
      const [span] = await h.spans(1);
      expect(span?.status.code).toBe(StatusCodeValue.UNSET);
      expect(span?.attributes['llm.usage.total_tokens']).toBe(15);
      // 4.0.0 does not yet guard a consumed stream: its iterator taken first just finds nothing.
      if (name === 'openai 4.0.0') expect(late).toBeUndefined();
      else expect(String(late)).toMatch(/Cannot iterate over a consumed stream/);
    });

    it('fails the span when the app aborts the stream with its controller', async () => {
      h.server.reply({ ...HELLO, hangAfterChunks: 2 });
      const stream = await make().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
      let seen = 0;
      try {
        for await (const _chunk of stream) {
          seen += 1;
          if (seen === 2) stream.controller.abort();
        }
      } catch {
        // Some releases end the loop with the abort error, others quietly.
      }
      expect(seen).toBe(2);
      const [span] = await h.spans(1);
      expect(span?.status.code).toBe(StatusCodeValue.ERROR);
      expect(withContentParsed(span!.attributes)).toEqual({ ...streamedHi(), ...HELLO_CUT_SHORT, 'error.type': 'AbortError' });
      expect(span?.events.map((e) => e.name)).toEqual(['exception']);
    });

    // Skipped before any request: a stream made and never read ends its span only once it is garbage-collected, in
    // whichever later test's export that happens to fall (it did: a later test read that span as its own).
    it.runIf(readable)('ends the span as left, with what came, when the reader of toReadableStream() cancels mid-stream', async () => {
      h.server.reply({ ...HELLO, hangAfterChunks: 2 });
      const stream = await make().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
      const reader = stream.toReadableStream!().getReader();
      await reader.read();
      await reader.read();
      // openai 4 to 6 leave the stream's loop before they abort the request (openai 7 aborts first: a failed span).
      await reader.cancel();
      const [span] = await h.spans(1);
      expect(span?.status.code).toBe(StatusCodeValue.UNSET);
      expect(withContentParsed(span!.attributes)).toEqual({ ...streamedHi(), ...HELLO_CUT_SHORT });
    });

    it('records a stream read to its end whole: request, response, usage and output', async () => {
      h.server.reply(HELLO);
      await chunksOf(await make().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true }));
      const [span] = await h.spans(1);
      expect(span?.status.code).toBe(StatusCodeValue.UNSET);
      expect(withContentParsed(span!.attributes)).toEqual({ ...streamedHi(), ...HELLO_RESPONSE, ...HELLO_USAGE, 'gen_ai.output.messages': HELLO_OUTPUT });
    });

    it('keeps the stream’s tee() and toReadableStream(), where the major has them, with every chunk under one span', async () => {
      h.server.reply(HELLO);
      const teed = await make().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
      h.server.reply(HELLO);
      const converted = await make().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
      // openai 4.0.0's Stream has neither: the span must end all the same once the app reads the stream itself.
      expect(typeof teed.tee).toBe(typeof converted.toReadableStream);
      if (teed.tee && converted.toReadableStream) {
        const [left, right] = teed.tee();
        const [a, b] = await Promise.all([chunksOf(left), chunksOf(right)]);
        expect(a).toHaveLength(5);
        expect(b).toEqual(a);
        const lines = (await new Response(converted.toReadableStream()).text()).trim().split('\n');
        expect(lines).toHaveLength(5);
        expect(lines.some((line) => line.includes('usage'))).toBe(false);
      } else {
        expect(await chunksOf(teed)).toHaveLength(5);
        expect(await chunksOf(converted)).toHaveLength(5);
      }
      const spans = await h.spans(2);
      for (const span of spans) {
        expect(withContentParsed(span.attributes)).toEqual({ ...streamedHi(), ...HELLO_RESPONSE, ...HELLO_USAGE, 'gen_ai.output.messages': HELLO_OUTPUT });
      }
    });

    it('traces a stream taken with .withResponse()', async () => {
      h.server.reply(HELLO);
      const { data, response } = await make().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true }).withResponse();
      expect(response.status).toBe(200);
      expect(await chunksOf(data)).toHaveLength(5);
      const [span] = await h.spans(1);
      expect(withContentParsed(span!.attributes)).toEqual({ ...streamedHi(), ...HELLO_RESPONSE, ...HELLO_USAGE, 'gen_ai.output.messages': HELLO_OUTPUT });
    });

    it('ends the span with what came, not as failed, when the app leaves the loop with break', async () => {
      h.server.reply(HELLO);
      const stream = await make().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI, stream: true });
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta.content === 'Hello') break;
      }
      const [span] = await h.spans(1);
      expect(span?.status.code).toBe(StatusCodeValue.UNSET);
      expect(withContentParsed(span!.attributes)).toEqual({ ...streamedHi(), ...HELLO_CUT_SHORT });
    });

    it('keeps .withResponse() working', async () => {
      h.server.reply(HELLO);
      const { data, response } = await make().chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI }).withResponse();
      expect(data.id).toBe('chatcmpl-hello');
      expect(response.status).toBe(200);
      await h.spans(1);
    });

    it('sends a stream taken with .asResponse() as the app gave it', async () => {
      h.server.reply(HELLO);
      const body = { model: 'gpt-4o-mini', messages: USER_HI, stream: true };
      const response = await make().chat.completions.create(body).asResponse();
      expect(await response.text()).not.toContain('usage');
      expect(h.server.requests.at(-1)?.body).toEqual(body);
      await h.spans(1);
    });

    it('fails the span with the SDK’s own error class on a 429', async () => {
      h.server.reply({ status: 429, error: { message: 'slow down' } });
      const error = await make()
        .chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI })
        .catch((e: unknown) => e);
      expect((error as Error).constructor.name).toBe('RateLimitError');
      const [span] = await h.spans(1);
      expect(span?.attributes['error.type']).toBe('RateLimitError');
      expect(span?.attributes['http.response.status_code']).toBe(429);
    });

    it('fails the span with the SDK’s own error, its status and an exception event on a 400, the rest recorded as on success', async () => {
      h.server.reply({ status: 400, error: { message: 'Invalid value for temperature' } });
      const error = await make()
        .chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI })
        .catch((e: unknown) => e);
      expect((error as Error).constructor.name).toBe('BadRequestError');
      const [span] = await h.spans(1);
      expect(span?.status).toEqual({ code: StatusCodeValue.ERROR, message: `BadRequestError: ${(error as Error).message}` });
      expect(withContentParsed(span!.attributes)).toEqual({
        ...h.common(),
        'gen_ai.input.messages': HI_INPUT,
        'error.type': 'BadRequestError',
        'http.response.status_code': 400,
      });
      expect(span?.events.map((e) => [e.name, e.attributes['exception.type'], e.attributes['exception.message']])).toEqual([
        ['exception', 'BadRequestError', (error as Error).message],
      ]);
    });

    it('fails the span with the SDK’s connection error when nothing listens', async () => {
      const error = await make('http://127.0.0.1:1/v1')
        .chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI })
        .catch((e: unknown) => e);
      expect((error as Error).constructor.name).toBe('APIConnectionError');
      const [span] = await h.spans(1);
      expect(span?.status).toEqual({ code: StatusCodeValue.ERROR, message: `APIConnectionError: ${(error as Error).message}` });
      expect(withContentParsed(span!.attributes)).toEqual({
        ...h.common(),
        'server.port': 1,
        'gen_ai.input.messages': HI_INPUT,
        'error.type': 'APIConnectionError',
      });
    });

    it('keeps the client’s API key out of the span when the service quotes it in an error', async () => {
      h.server.reply({ status: 401, error: { message: `Incorrect API key provided: ${API_KEY}.` } });
      const error = await make()
        .chat.completions.create({ model: 'gpt-4o-mini', messages: USER_HI })
        .catch((e: unknown) => e);
      expect((error as Error).message).toContain(API_KEY);
      const [span] = await h.spans(1);
      expect(span?.status.message).toContain('Incorrect API key provided');
      expect(JSON.stringify(span, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(API_KEY);
    });
  });
}

describe('structured output parsing', () => {
  const body = {
    model: 'gpt-4o-mini',
    messages: USER_HI,
    response_format: { type: 'json_schema' as const, json_schema: { name: 'a', schema: { type: 'object' } } },
  };
  const parsers = [
    { name: 'openai 4 (beta.chat.completions.parse)', parse: () => v4().beta.chat.completions.parse(body) },
    { name: 'openai 6 (chat.completions.parse)', parse: () => v6().chat.completions.parse(body) },
  ];
  // Only the spans of a structured-output request: a span an earlier test's call ended late (a stream let go, ended
  // when it was collected) may arrive in the same export under load.
  const parseSpans = (spans: DecodedSpan[]) => spans.filter((span) => span.attributes['gen_ai.output.type'] === 'json');
  for (const { name, parse } of parsers) {
    it(`is traced as one span in ${name}`, async () => {
      h.server.reply({ ...HELLO, choices: [{ content: '{"a":1}', finishReason: 'stop' }] });
      const completion = await parse();
      expect(completion.choices[0]?.message.parsed).toEqual({ a: 1 });
      const spans = parseSpans(await h.spans(1));
      expect(spans).toHaveLength(1);
      expect(spans[0]?.attributes['gen_ai.output.type']).toBe('json');
    });

    it(`records the completion of a parse that fails in ${name}`, async () => {
      h.server.reply({ ...HELLO, choices: [{ content: '{"a":', finishReason: 'length' }] });
      const failure = await parse().catch((error: unknown) => error);
      expect((failure as Error).constructor.name).toBe('LengthFinishReasonError');
      const spans = parseSpans(await h.spans(1));
      expect(spans).toHaveLength(1);
      // The span fails with the app's error, and keeps the completion that could not be parsed.
      expect(spans[0]?.status.code).toBe(StatusCodeValue.ERROR);
      expect(spans[0]?.attributes).toMatchObject({
        'error.type': 'LengthFinishReasonError',
        'gen_ai.response.id': HELLO_RESPONSE['gen_ai.response.id'],
        'gen_ai.response.finish_reasons': ['length'],
        ...HELLO_USAGE,
      });
    });
  }
});
