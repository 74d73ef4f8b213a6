import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecodedSpan } from '../../src/otlp/index.js';
import { renderChunks, type ScriptedChoice, type ScriptedCompletion } from '../helpers/openai-server.js';
import { type Harness, startHarness } from '../instrumentation/harness.js';
import { text } from './arbitraries.js';
import { runs } from './runs.js';

/**
 * The chat mapping is one mapping of a response, whether it came whole or as a stream: the same random answer,
 * served by the loopback server as JSON and as server-sent events split at random points, must give the chat span
 * the same output messages, finish reasons and usage, through the real `openai` package. And weft must not change
 * what the app reads: a stream's chunks reach the app exactly as the server would have sent them for the request the
 * app made (weft asks for usage on the app's behalf, and hides that usage).
 */

/** Splits `whole` at random points into pieces (empty ones included), never inside a surrogate pair. */
function pieces(whole: fc.Arbitrary<string>): fc.Arbitrary<string[]> {
  return whole.chain((full) =>
    fc.uniqueArray(fc.integer({ min: 0, max: full.length }), { maxLength: 6 }).map((cuts) => {
      // A server's JSON carries whole code points: a cut inside a pair is not something a stream can do.
      const at = cuts.filter((i) => !(i > 0 && i < full.length && /[\ud800-\udbff]/.test(full[i - 1]!) && /[\udc00-\udfff]/.test(full[i]!)));
      at.sort((a, b) => a - b);
      const out: string[] = [];
      let from = 0;
      for (const cut of at) {
        out.push(full.slice(from, cut));
        from = cut;
      }
      out.push(full.slice(from));
      return out;
    }),
  );
}

const toolArguments = fc.oneof(
  fc.json({ maxDepth: 2 }),
  fc.jsonValue({ maxDepth: 2 }).map((v) => ` ${JSON.stringify(v)}\n`),
  text(30),
  fc.constantFrom('{"city": "Par', '[1, 2', '{}', ''),
);

const choiceArbitrary: fc.Arbitrary<ScriptedChoice> = fc
  .record(
    {
      content: pieces(text(60)),
      reasoning: pieces(text(30)),
      refusal: text(20),
      toolCalls: fc.array(
        fc.record({ id: fc.oneof(fc.constant(""), fc.stringMatching(/^call_[A-Za-z0-9]{1,12}$/)), name: fc.stringMatching(/^[a-z_][a-z0-9_]{0,15}$/), arguments: pieces(toolArguments) }),
        { maxLength: 3 },
      ),
      finishReason: fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter', 'function_call'),
    },
    { requiredKeys: ['finishReason'] },
  )
  .map((choice) => {
    // The server writes a refusal and tool calls only when there are some, as OpenAI does.
    const out: ScriptedChoice = { ...choice };
    if (!out.refusal) delete out.refusal;
    if (out.toolCalls && out.toolCalls.length === 0) delete out.toolCalls;
    return out;
  });

const usageArbitrary = fc.record(
  {
    prompt_tokens: fc.nat(),
    completion_tokens: fc.nat(),
    total_tokens: fc.nat(),
    prompt_tokens_details: fc.record({ cached_tokens: fc.nat() }),
    completion_tokens_details: fc.record({ reasoning_tokens: fc.nat() }),
  },
  { requiredKeys: ['prompt_tokens', 'completion_tokens'] },
);

const completionArbitrary: fc.Arbitrary<ScriptedCompletion> = fc.record(
  {
    id: fc.stringMatching(/^chatcmpl-[A-Za-z0-9]{1,10}$/),
    model: fc.constantFrom('gpt-4o-mini-2024-07-18', 'meta-llama/Llama-3.1-8B-Instruct'),
    choices: fc.array(choiceArbitrary, { minLength: 1, maxLength: 3 }),
    usage: usageArbitrary,
    systemFingerprint: fc.stringMatching(/^fp_[a-f0-9]{1,10}$/),
    usageOnLastChoice: fc.boolean(),
    usageChunkChoices: fc.constantFrom('null' as const, 'absent' as const),
    obfuscation: fc.stringMatching(/^[A-Za-z0-9]{0,12}$/),
    choiceAfterChoice: fc.boolean(),
  },
  { requiredKeys: ['choices'] },
);

/** The attributes that say what the answer was: the same for a response whole or streamed. */
const ANSWER_KEYS = [
  'gen_ai.output.messages',
  'gen_ai.response.finish_reasons',
  'gen_ai.response.id',
  'gen_ai.response.model',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
  'gen_ai.usage.cache_read.input_tokens',
  'gen_ai.usage.reasoning.output_tokens',
  'llm.usage.total_tokens',
  'openai.response.system_fingerprint',
];

function answerOf(span: DecodedSpan): Record<string, unknown> {
  return Object.fromEntries(ANSWER_KEYS.map((key) => [key, span.attributes[key]]));
}

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});

afterAll(async () => {
  await harness?.close();
});

describe('the chat mapping, whatever the chunking', () => {
  it('records the same answer for a response whole and streamed in random pieces, and the app reads the chunks the server sent', async () => {
    const client = harness.client();
    await fc.assert(
      fc.asyncProperty(completionArbitrary, async (reply) => {
        harness.server.reply(reply);
        const first = harness.server.requests.length;
        const n = reply.choices.length;
        const messages = [{ role: 'user' as const, content: 'hi' }];

        const whole = await client.chat.completions.create({ model: 'whole', messages, n });
        const read: string[] = [];
        for await (const chunk of await client.chat.completions.create({ model: 'streamed', messages, n, stream: true })) read.push(JSON.stringify(chunk));
        const readWithUsage: string[] = [];
        const asked = await client.chat.completions.create({ model: 'asked', messages, n, stream: true, stream_options: { include_usage: true } });
        for await (const chunk of asked) readWithUsage.push(JSON.stringify(chunk));

        // The app reads what the server sends for the request the app made: weft's usage request leaves no trace.
        expect(read).toEqual(renderChunks(reply, false).map((c) => JSON.stringify(c)));
        expect(readWithUsage).toEqual(harness.server.sentChunks(first + 2).map((c) => JSON.stringify(c)));
        expect(harness.server.sentChunks(first + 2)).toEqual(renderChunks(reply, true));
        expect(whole.choices.map((c) => c.message.content ?? '')).toEqual(reply.choices.map((c) => [c.content ?? []].flat().join('')));

        const spans = await harness.spans(3);
        const span = (model: string) => spans.find((s) => s.attributes['gen_ai.request.model'] === model)!;
        const expected = answerOf(span('whole'));
        expect(answerOf(span('streamed'))).toEqual(expected);
        expect(answerOf(span('asked'))).toEqual(expected);

        // And that answer is the server's: each choice's text, refusal and tool calls, in order.
        const output = JSON.parse(String(expected['gen_ai.output.messages'])) as { parts: Record<string, unknown>[] }[];
        expect(output).toHaveLength(n);
        output.forEach((message, i) => {
          const choice = reply.choices[i]!;
          const textPart = message.parts.find((p) => p.type === 'text');
          const content = [choice.content ?? []].flat().join('');
          expect(textPart?.content ?? '').toBe(content);
          expect(message.parts.filter((p) => p.type === 'tool_call').map((p) => [p.id, p.name])).toEqual(
            (choice.toolCalls ?? []).map((call) => [call.id, call.name]),
          );
        });
      }),
      runs(200),
    );
  });
});
