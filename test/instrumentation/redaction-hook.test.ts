import { DiagConsoleLogger, DiagLogLevel, diag } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ContentRedactor } from 'weft';
import { HELLO } from '../helpers/openai-server.js';
import { HELLO_RESPONSE, HELLO_USAGE } from './expected-spans.js';
import { type Harness, startHarness } from './harness.js';

/**
 * The redaction hook on openai calls: one that rewrites sees every message of both sides, streamed output included,
 * before anything is recorded; one that misbehaves — returns something that is not a list of messages — costs the
 * span its content, never its other attributes, and is reported once.
 */

let h: Harness;
/** What weft warned, for the whole file: a misbehaving hook is reported once per process, whichever test came first. */
const warnings: string[] = [];
beforeAll(async () => {
  h = await startHarness();
  const record = (...args: unknown[]) => void warnings.push(args.join(' '));
  diag.setLogger({ error: record, warn: record, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
});
afterEach(() => {
  h.instrumentation.setConfig({});
});
afterAll(async () => {
  diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.WARN);
  await h.close();
});

/** One openai call with this hook; the exported span's attributes. */
async function attributesWith(redactContent: ContentRedactor): Promise<Record<string, unknown>> {
  h.instrumentation.setConfig({ redactContent });
  h.server.reply(HELLO);
  await h.client().chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'My card is 4111111111111111' },
    ],
    temperature: 0.2,
    tools: [{ type: 'function', function: { name: 'pay', parameters: { type: 'object' } } }],
  });
  const [span] = await h.spans(1);
  return span!.attributes;
}

/** Everything but content, which a misbehaving hook must not cost. */
function withoutContent(): Record<string, unknown> {
  return {
    ...h.common(),
    'gen_ai.request.temperature': 0.2,
    'gen_ai.tool.definitions': JSON.stringify([{ type: 'function', name: 'pay', parameters: { type: 'object' } }]),
    ...HELLO_RESPONSE,
    ...HELLO_USAGE,
  };
}

describe('a redaction hook that returns malformed messages', () => {
  it('leaves content out, keeps every other attribute, and is reported once', async () => {
    const malformed = (() => [null, { role: 'user' }]) as unknown as ContentRedactor;
    expect(await attributesWith(malformed)).toEqual(withoutContent());
    expect(await attributesWith(malformed)).toEqual(withoutContent());
    expect(warnings.filter((line) => line.includes('redactContent hook returned something other than'))).toHaveLength(1);
  });

  it('leaves content out when it returns something that is not an array, rather than recording it unredacted', async () => {
    const attributes = await attributesWith((() => 'redacted') as unknown as ContentRedactor);
    expect(attributes).toEqual(withoutContent());
    expect(JSON.stringify(attributes)).not.toContain('4111');
  });

  it('keeps every other attribute when its messages cannot be serialized', async () => {
    const unserializable: ContentRedactor = (messages) => messages.map((m) => ({ ...m, parts: [{ type: 'text', content: 1n }] }));
    expect(await attributesWith(unserializable)).toEqual(withoutContent());
  });
});

describe('a redaction hook that rewrites messages', () => {
  const maskCards: ContentRedactor = (messages) =>
    messages.map((m) => ({
      ...m,
      parts: m.parts.map((p) => (p.type === 'text' ? { ...p, content: String(p.content).replace(/\d{16}/g, '[card]') } : p)),
    }));

  it('rewrites the system instructions, input and streamed output of a call before they are recorded', async () => {
    h.instrumentation.setConfig({ redactContent: maskCards });
    h.server.reply({ ...HELLO, choices: [{ content: ['Charged 4111', '111111111111', ' today.'], finishReason: 'stop' }] });
    const stream = await h.client().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Never repeat 5500000000000004.' },
        { role: 'user', content: 'My card is 4111111111111111' },
      ],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    // The app gets the answer as the server sent it: the hook only changes what is recorded.
    expect(text).toBe('Charged 4111111111111111 today.');

    const [span] = await h.spans(1);
    expect(span?.attributes).toEqual({
      ...h.common(),
      'gen_ai.request.stream': true,
      'gen_ai.response.time_to_first_chunk': expect.any(Number),
      'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'Never repeat [card].' }]),
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'My card is [card]' }] }]),
      ...HELLO_RESPONSE,
      ...HELLO_USAGE,
      'gen_ai.output.messages': JSON.stringify([
        { role: 'assistant', parts: [{ type: 'text', content: 'Charged [card] today.' }], finish_reason: 'stop' },
      ]),
    });
  });
});
