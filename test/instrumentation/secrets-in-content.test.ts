import { afterAll, beforeAll, expect, it } from 'vitest';
import { API_KEY, type Harness, startHarness } from './harness.js';

/**
 * Content the app sends or the model returns can quote the client's API key (pasted into a prompt, echoed in a
 * tool call): it is recorded without it, from the very first call of the client. The first test here is the
 * first call in this process, so nothing has remembered the key before it.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ maxMessageLength: 256 });
});
afterAll(async () => {
  await h.close();
});

const CONTENT = ['gen_ai.system_instructions', 'gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.definitions'];
/** Any 8 characters of the key, so that a cut key is found too. */
const PIECES = Array.from({ length: API_KEY.length - 7 }, (_, i) => API_KEY.slice(i, i + 8));

function recorded(attributes: Record<string, unknown>): string[] {
  return CONTENT.map((key) => attributes[key]).filter((value): value is string => typeof value === 'string');
}

it('records messages, tool calls and tool definitions without the client’s API key', async () => {
  h.server.reply({
    choices: [
      {
        content: `Your key is ${API_KEY}.`,
        toolCalls: [{ id: 'call_1', name: 'store', arguments: JSON.stringify({ key: API_KEY }) }],
        finishReason: 'tool_calls',
      },
    ],
  });
  await h.client().chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: `The key is ${API_KEY}.` },
      { role: 'user', content: `Remember ${API_KEY}` },
      { role: 'assistant', tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'store', arguments: `{"key":"${API_KEY}"}` } }] },
      { role: 'tool', tool_call_id: 'call_0', content: `stored ${API_KEY}` },
    ],
    tools: [{ type: 'function', function: { name: 'store', description: `Stores ${API_KEY}`, parameters: { type: 'object' } } }],
  });
  const [span] = await h.spans(1);
  const values = recorded(span!.attributes);
  expect(values).toHaveLength(CONTENT.length);
  for (const value of values) {
    expect(value).toContain('[REDACTED]');
    expect(value).not.toContain(API_KEY);
  }
});

it('removes the key before cutting a long message, so no part of it is left where the cut falls', async () => {
  // The cut to maxMessageLength (256) falls inside the key; the key is a few characters longer than that.
  const text = `${'a'.repeat(160)}${API_KEY}${'b'.repeat(400)}`;
  await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] });
  const [span] = await h.spans(1);
  const input = span!.attributes['gen_ai.input.messages'] as string;
  expect(input).toContain('…[weft: ');
  for (const piece of PIECES) expect(input).not.toContain(piece);
  expect(input).toContain('[REDACTED]');
});
