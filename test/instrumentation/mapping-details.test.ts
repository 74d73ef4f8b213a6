import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatCompletionRequest, type ChatTracingConfig, resolveChatTracingConfig, traceChatCompletion } from 'weft';
import { type Harness, json, startHarness } from './harness.js';

// The corners of the one chat mapping that the broader tests do not reach: request parameters of uncommon shapes,
// legacy function calling, content parts of every kind, usage without a total, errors that are not Error objects.
// Found by mutation testing: each test here fails when a line of the mapping is changed or left out.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const USER = { role: 'user', content: 'hi' } as const;
const ANSWER = { id: 'c', model: 'm', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok' } }] };

/** One call through the public `traceChatCompletion`, and its span as exported and decoded. */
async function traced(
  request: Partial<ChatCompletionRequest>,
  answer: unknown = ANSWER,
  config: ChatTracingConfig = {},
  serverUrl = 'https://api.openai.com/v1',
) {
  const tracer = h.handle.tracerProvider.getTracer('mapping-details');
  const full = { model: 'm', messages: [USER], ...request } as ChatCompletionRequest;
  await traceChatCompletion(tracer, full, async () => answer, { config: resolveChatTracingConfig(config, {}), serverUrl });
  const [span] = await h.spans(1);
  return span!;
}

const attributesOf = async (request: Partial<ChatCompletionRequest>, answer?: unknown, config?: ChatTracingConfig, serverUrl?: string) =>
  (await traced(request, answer, config, serverUrl)).attributes;

/** A completion whose one choice is this message. */
const answering = (message: Record<string, unknown>, finish_reason = 'stop') => ({
  id: 'c',
  model: 'm',
  choices: [{ index: 0, finish_reason, message }],
});

describe('request parameters', () => {
  it('keeps the string stop sequences of a list, and records none when the list has no string', async () => {
    expect((await attributesOf({ stop: ['END', 7, 'STOP'] as never }))['gen_ai.request.stop_sequences']).toEqual(['END', 'STOP']);
    expect(await attributesOf({ stop: [7] as never })).not.toHaveProperty('gen_ai.request.stop_sequences');
    expect((await attributesOf({ stop: 'END' }))['gen_ai.request.stop_sequences']).toEqual(['END']);
  });

  it("records a service tier the app chose, not 'auto', the default", async () => {
    expect((await attributesOf({ service_tier: 'flex' }))['openai.request.service_tier']).toBe('flex');
    expect(await attributesOf({ service_tier: 'auto' })).not.toHaveProperty('openai.request.service_tier');
  });

  it('maps each response format to the output type', async () => {
    const type = async (format: string) => (await attributesOf({ response_format: { type: format } as never }))['gen_ai.output.type'];
    expect(await type('text')).toBe('text');
    expect(await type('json_object')).toBe('json');
    expect(await type('json_schema')).toBe('json');
    expect(await type('grammar')).toBeUndefined();
  });

  it('records the choice count only when it is not 1', async () => {
    expect((await attributesOf({ n: 3 }))['gen_ai.request.choice.count']).toBe(3);
    expect(await attributesOf({ n: 1 })).not.toHaveProperty('gen_ai.request.choice.count');
  });

  it('names a span without a usable model plain `chat`', async () => {
    expect((await traced({ model: '' })).name).toBe('chat');
    expect((await traced({ model: 42 as never })).name).toBe('chat');
    expect((await traced({ model: 'gpt-x' })).name).toBe('chat gpt-x');
  });
});

describe('the provider', () => {
  const withTier = { ...ANSWER, service_tier: 'flex', system_fingerprint: 'fp' };

  it('puts OpenAI’s own attributes on spans of OpenAI’s API only', async () => {
    const attributes = await attributesOf({ service_tier: 'flex' }, withTier, {}, 'https://api.mistral.ai/v1');
    expect(attributes['gen_ai.provider.name']).toBe('mistral_ai');
    expect(Object.keys(attributes).filter((k) => k.startsWith('openai.'))).toEqual([]);
  });

  it('puts OpenAI’s own attributes on spans of Azure OpenAI too', async () => {
    const attributes = await attributesOf({ service_tier: 'flex' }, withTier, {}, 'https://acme.openai.azure.com/openai');
    expect(attributes).toMatchObject({
      'gen_ai.provider.name': 'azure.ai.openai',
      'openai.api.type': 'chat_completions',
      'openai.request.service_tier': 'flex',
      'openai.response.service_tier': 'flex',
      'openai.response.system_fingerprint': 'fp',
    });
  });
});

describe('usage', () => {
  it('adds input and output up for the total the trace service reads when the response gives none', async () => {
    const attributes = await attributesOf({}, { ...ANSWER, usage: { prompt_tokens: 5, completion_tokens: 7 } });
    expect(attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 5, 'gen_ai.usage.output_tokens': 7, 'llm.usage.total_tokens': 12 });
  });

  it('records no total when one of the two counts is missing', async () => {
    const attributes = await attributesOf({}, { ...ANSWER, usage: { prompt_tokens: 5 } });
    expect(attributes['gen_ai.usage.input_tokens']).toBe(5);
    expect(attributes).not.toHaveProperty('llm.usage.total_tokens');
  });

  it('takes the response’s own total when it has one', async () => {
    const attributes = await attributesOf({}, { ...ANSWER, usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 20 } });
    expect(attributes['llm.usage.total_tokens']).toBe(20);
  });
});

describe('errors that are not HTTP errors of a client', () => {
  async function failed(thrown: unknown) {
    const tracer = h.handle.tracerProvider.getTracer('mapping-details');
    const caught = await traceChatCompletion(tracer, { model: 'm', messages: [USER] }, () => Promise.reject(thrown)).catch((e) => e);
    expect(caught).toBe(thrown);
    const [span] = await h.spans(1);
    return span!.attributes;
  }

  it("types a thrown string or undefined as '_OTHER'", async () => {
    expect((await failed('boom'))['error.type']).toBe('_OTHER');
    expect((await failed(undefined))['error.type']).toBe('_OTHER');
  });

  it('records an HTTP status only when it is an integer', async () => {
    expect((await failed(Object.assign(new Error('x'), { status: 429 })))['http.response.status_code']).toBe(429);
    expect(await failed(Object.assign(new Error('x'), { status: '429' }))).not.toHaveProperty('http.response.status_code');
    expect(await failed(Object.assign(new Error('x'), { status: 429.5 }))).not.toHaveProperty('http.response.status_code');
  });
});

describe('the redactContent hook', () => {
  const input = async (redactContent: ChatTracingConfig['redactContent']) =>
    (await attributesOf({}, ANSWER, { redactContent }))['gen_ai.input.messages'];

  it('keeps the content as it was when the hook returns nothing, and leaves it out when it returns null', async () => {
    expect(json(await input(() => undefined))).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }]);
    expect(await input(() => null)).toBeUndefined();
  });

  it('leaves the content out when one message of the list it returns is not a message', async () => {
    expect(await input(() => [{ role: 'user', parts: [{ type: 'text', content: 'kept?' }] }, {}] as never)).toBeUndefined();
    expect(await input(() => [{ role: 'user', parts: [{ type: 'text' }, {}] }] as never)).toBeUndefined();
    expect(await input(() => [{ role: 7, parts: [] }] as never)).toBeUndefined();
  });
});

describe('input messages', () => {
  it('records nothing for an empty message list', async () => {
    expect(await attributesOf({ messages: [] })).not.toHaveProperty('gen_ai.input.messages');
  });

  it('moves leading developer messages into the system instructions', async () => {
    const attributes = await attributesOf({ messages: [{ role: 'developer', content: 'Be terse.' }, USER] });
    expect(json(attributes['gen_ai.system_instructions'])).toEqual([{ type: 'text', content: 'Be terse.' }]);
    expect(json(attributes['gen_ai.input.messages'])).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }]);
  });

  it('keeps a participant’s name and an assistant’s refusal', async () => {
    const messages = [
      { role: 'user', content: 'hi', name: 'ada' },
      { role: 'assistant', content: null, refusal: 'I cannot.' },
    ];
    expect(json((await attributesOf({ messages } as never))['gen_ai.input.messages'])).toEqual([
      { role: 'user', name: 'ada', parts: [{ type: 'text', content: 'hi' }] },
      { role: 'assistant', parts: [{ type: 'refusal', content: 'I cannot.' }] },
    ]);
  });

  it('takes a message without a role for the user’s, and leaves out empty names, refusals and audio formats', async () => {
    const messages = [
      { content: 'no role' },
      { role: 'user', name: '', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: '' } }] },
      { role: 'assistant', content: 'ok', refusal: '', function_call: 'not an object' },
    ];
    expect(json((await attributesOf({ messages } as never))['gen_ai.input.messages'])).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'no role' }] },
      { role: 'user', parts: [{ type: 'blob', modality: 'audio', content: 'AAAA' }] },
      { role: 'assistant', parts: [{ type: 'text', content: 'ok' }] },
    ]);
  });

  it('records every kind of content part, and a part weft does not know by its type alone', async () => {
    const content = [
      { type: 'text', text: 'look' },
      { type: 'refusal', refusal: 'no' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } },
      { type: 'image_url', image_url: { url: 'data:;base64,AAAA' } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
      { type: 'input_audio', input_audio: { data: 'UklG', format: 'wav' } },
      { type: 'input_audio', input_audio: { data: 'SUQz', format: 'mp3' } },
      { type: 'input_audio', input_audio: { data: 'AAAA', format: 'pcm16' } },
      { type: 'input_audio', input_audio: { data: 'AAAA' } },
      { type: 'file', file: { file_id: 'file-1' } },
      { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBER' } },
      { type: 'file', file: { file_data: 'JVBER' } },
      { type: 'video_frame', video_frame: { payload: 'secret bytes' } },
      { type: 'file', file: { file_data: 'data:text/plain;charset=utf-8;base64,aGk=' } },
      // Parts too malformed to record are left out, and the rest of the message is kept.
      { type: 'image_url' },
      { type: 'input_audio', input_audio: { format: 'wav' } },
      { type: 'file', file: {} },
      { type: 7 },
      null,
    ];
    expect(json((await attributesOf({ messages: [{ role: 'user', content }] } as never))['gen_ai.input.messages'])).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', content: 'look' },
          { type: 'refusal', content: 'no' },
          { type: 'blob', modality: 'image', mime_type: 'image/png', content: 'iVBOR' },
          { type: 'blob', modality: 'image', content: 'AAAA' },
          { type: 'uri', modality: 'image', uri: 'https://example.com/cat.png' },
          { type: 'blob', modality: 'audio', mime_type: 'audio/wav', content: 'UklG' },
          { type: 'blob', modality: 'audio', mime_type: 'audio/mpeg', content: 'SUQz' },
          { type: 'blob', modality: 'audio', mime_type: 'audio/pcm', content: 'AAAA' },
          { type: 'blob', modality: 'audio', content: 'AAAA' },
          { type: 'file', modality: 'document', file_id: 'file-1' },
          { type: 'blob', modality: 'document', mime_type: 'application/pdf', content: 'JVBER' },
          { type: 'blob', modality: 'document', content: 'JVBER' },
          { type: 'video_frame' },
          { type: 'blob', modality: 'document', mime_type: 'text/plain', content: 'aGk=' },
        ],
      },
    ]);
  });

  it('keeps a URL that only mentions base64 later on as a URI', async () => {
    const url = 'https://example.com/a?data:image/png;base64,x';
    const content = [{ type: 'image_url', image_url: { url } }];
    expect(json((await attributesOf({ messages: [{ role: 'user', content }] } as never))['gen_ai.input.messages'])).toEqual([
      { role: 'user', parts: [{ type: 'uri', modality: 'image', uri: url }] },
    ]);
  });

  it('joins the text parts of a tool result given as parts', async () => {
    const messages = [
      USER,
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'sun' }, { type: 'text', text: 'ny' }] },
    ];
    const recorded = json((await attributesOf({ messages } as never))['gen_ai.input.messages']) as { parts: unknown[] }[];
    expect(recorded[1]!.parts).toEqual([{ type: 'tool_call', id: 'call_1', name: 'f', arguments: {} }]);
    expect(recorded[2]).toEqual({ role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: 'sunny' }] });
  });

  it('records legacy function calling: the functions, the call and its result', async () => {
    const request = {
      messages: [
        USER,
        { role: 'assistant', content: null, function_call: { name: 'weather', arguments: '{"city":"Oslo"}' } },
        { role: 'function', name: 'weather', content: 'rain' },
      ],
      functions: [{ name: 'weather', description: 'Weather now', parameters: { type: 'object' } }, { description: 'nameless' }],
    };
    const attributes = await attributesOf(request as never, answering({ role: 'assistant', content: null, function_call: { name: 'weather', arguments: '{}' } }, 'function_call'));
    expect(json(attributes['gen_ai.tool.definitions'])).toEqual([
      { type: 'function', name: 'weather', description: 'Weather now', parameters: { type: 'object' } },
    ]);
    expect((json(attributes['gen_ai.input.messages']) as unknown[]).slice(1)).toEqual([
      { role: 'assistant', parts: [{ type: 'tool_call', name: 'weather', arguments: { city: 'Oslo' } }] },
      { role: 'tool', name: 'weather', parts: [{ type: 'tool_call_response', response: 'rain' }] },
    ]);
    expect(json(attributes['gen_ai.output.messages'])).toEqual([
      { role: 'assistant', finish_reason: 'tool_call', parts: [{ type: 'tool_call', name: 'weather', arguments: {} }] },
    ]);
  });

  it('keeps tool-call arguments that are not valid JSON as the text they were', async () => {
    const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"city": "Os' } };
    const attributes = await attributesOf({}, answering({ role: 'assistant', content: null, tool_calls: [call] }, 'tool_calls'));
    expect(json(attributes['gen_ai.output.messages'])).toEqual([
      { role: 'assistant', finish_reason: 'tool_call', parts: [{ type: 'tool_call', id: 'call_1', name: 'f', arguments: '{"city": "Os' }] },
    ]);
  });
});

describe('tool calls of odd shapes', () => {
  const recordedParts = async (message: Record<string, unknown>) =>
    (json((await attributesOf({}, answering(message, 'tool_calls')))['gen_ai.output.messages']) as { parts: unknown[] }[])[0]!.parts;

  it('skips entries of the list that are not tool calls, and keeps the others', async () => {
    const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } };
    expect(await recordedParts({ role: 'assistant', content: null, tool_calls: [null, { id: 'x', type: 'mystery' }, call], function_call: null })).toEqual([
      { type: 'tool_call', id: 'call_1', name: 'f', arguments: {} },
    ]);
  });

  it('parses arguments that are a JSON array, keeps plain text and non-string arguments as they are, and leaves out absent ones', async () => {
    const calls = [
      { id: 'a', type: 'function', function: { name: 'list', arguments: '  [1, 2]  ' } },
      { id: 'b', type: 'function', function: { name: 'text', arguments: 'just words' } },
      { id: 'c', type: 'function', function: { name: 'object', arguments: { already: 'parsed' } } },
      { id: 'd', type: 'function', function: { name: 'none' } },
      { id: 'e', type: 'function', function: { name: 9, arguments: '{}' } },
    ];
    expect(await recordedParts({ role: 'assistant', content: null, tool_calls: calls })).toEqual([
      { type: 'tool_call', id: 'a', name: 'list', arguments: [1, 2] },
      { type: 'tool_call', id: 'b', name: 'text', arguments: 'just words' },
      { type: 'tool_call', id: 'c', name: 'object', arguments: { already: 'parsed' } },
      { type: 'tool_call', id: 'd', name: 'none' },
      { type: 'tool_call', id: 'e', name: '', arguments: {} },
    ]);
  });

  it('records an answer’s refusal', async () => {
    expect(await recordedParts({ role: 'assistant', content: null, refusal: 'I cannot help with that.' })).toEqual([
      { type: 'refusal', content: 'I cannot help with that.' },
    ]);
  });

  it('records a tool result without content as null, and joins only the text of its parts', async () => {
    const messages = [
      USER,
      { role: 'tool', tool_call_id: 'a' },
      { role: 'tool', tool_call_id: 'b', content: [null, { type: 'image_url', image_url: { url: 'u' } }, { type: 'text', text: 'ok' }] },
    ];
    expect((json((await attributesOf({ messages } as never))['gen_ai.input.messages']) as unknown[]).slice(1)).toEqual([
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'a', response: null }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'b', response: 'ok' }] },
    ]);
  });
});

describe('tool definitions', () => {
  const tools = [
    { type: 'function', function: { name: 'f', description: 'F', parameters: { type: 'object' } } },
    { type: 'custom', custom: { name: 'sql', description: 'SQL', format: { type: 'grammar', grammar: { syntax: 'lark', definition: 's' } } } },
  ];

  it('keeps each tool’s type, and a custom tool’s format, when input content is recorded', async () => {
    expect(json((await attributesOf({ tools } as never))['gen_ai.tool.definitions'])).toEqual([
      { type: 'function', name: 'f', description: 'F', parameters: { type: 'object' } },
      { type: 'custom', name: 'sql', description: 'SQL', format: { type: 'grammar', grammar: { syntax: 'lark', definition: 's' } } },
    ]);
  });

  it('keeps only their types and names when it is not, legacy functions too', async () => {
    const functions = [{ name: 'weather', description: 'Weather now', parameters: { type: 'object' } }];
    expect(json((await attributesOf({ tools, functions } as never, ANSWER, { captureContent: 'output' }))['gen_ai.tool.definitions'])).toEqual([
      { type: 'function', name: 'f' },
      { type: 'custom', name: 'sql' },
      { type: 'function', name: 'weather' },
    ]);
  });

  it('takes a tool without a type for a function, and records one without parameters or a name as far as it can', async () => {
    const odd = [{ function: { name: 'untyped' } }, { type: 'function', function: { description: 'nameless' } }, null, { type: 'function' }];
    expect(json((await attributesOf({ tools: odd } as never))['gen_ai.tool.definitions'])).toEqual([{ type: 'function', name: 'untyped' }]);
  });

  it('records a custom tool call of the answer with its id and raw input', async () => {
    const call = { id: 'call_9', type: 'custom', custom: { name: 'sql', input: 'SELECT 1' } };
    const attributes = await attributesOf({ tools } as never, answering({ role: 'assistant', content: null, tool_calls: [call] }, 'tool_calls'));
    expect(json(attributes['gen_ai.output.messages'])).toEqual([
      { role: 'assistant', finish_reason: 'tool_call', parts: [{ type: 'tool_call', id: 'call_9', name: 'sql', arguments: 'SELECT 1' }] },
    ]);
  });

  it('keeps the list within the attribute limit, leaving out the first tools and saying how many', async () => {
    const many = Array.from({ length: 200 }, (_, i) => ({ type: 'function', function: { name: `tool_${i}`, parameters: { type: 'object' } } }));
    const attribute = (await attributesOf({ tools: many } as never, ANSWER, { maxAttributeLength: 2000 }))['gen_ai.tool.definitions'];
    expect((attribute as string).length).toBeLessThanOrEqual(2000);
    const [marker, ...kept] = json(attribute) as { name: string }[];
    expect(marker!.name).toMatch(/^…\[\d+ tools left out\]$/);
    expect(Number(/\d+/.exec(marker!.name)![0]) + kept.length).toBe(200);
    expect(kept.at(-1)!.name).toBe('tool_199');
  });

  it('keeps long system instructions within the attribute limit, leaving out the first parts and saying how many', async () => {
    const system = Array.from({ length: 100 }, (_, i) => ({ role: 'system', content: `rule ${i}: ${'x'.repeat(40)}` }));
    const attribute = (await attributesOf({ messages: [...system, USER] } as never, ANSWER, { maxAttributeLength: 1500 }))[
      'gen_ai.system_instructions'
    ];
    expect((attribute as string).length).toBeLessThanOrEqual(1500);
    const [marker, ...kept] = json(attribute) as { content: string }[];
    expect(marker!.content).toMatch(/^…\[\d+ parts left out\]$/);
    expect(Number(/\d+/.exec(marker!.content)![0]) + kept.length).toBe(100);
    expect(kept.at(-1)!.content).toMatch(/^rule 99: /);
  });
});

describe('output messages', () => {
  it('keeps the role the answer gives, and says assistant when it gives none', async () => {
    const recorded = async (message: Record<string, unknown>) => json((await attributesOf({}, answering(message)))['gen_ai.output.messages']);
    expect(await recorded({ role: 'model', content: 'a' })).toEqual([{ role: 'model', finish_reason: 'stop', parts: [{ type: 'text', content: 'a' }] }]);
    expect(await recorded({ content: 'a' })).toEqual([{ role: 'assistant', finish_reason: 'stop', parts: [{ type: 'text', content: 'a' }] }]);
  });

  it('leaves out the empty parts of an answer: content, reasoning, refusal, transcript and audio', async () => {
    const message = { role: 'assistant', content: '', reasoning_content: '', refusal: '', audio: { id: 'a', transcript: '', data: '' } };
    expect(json((await attributesOf({}, answering(message)))['gen_ai.output.messages'])).toEqual([
      { role: 'assistant', finish_reason: 'stop', parts: [] },
    ]);
  });

  it('records a spoken answer as its transcript and its audio', async () => {
    const attributes = await attributesOf({}, answering({ role: 'assistant', content: null, audio: { id: 'a', transcript: 'Hello', data: 'UklG' } }));
    expect(json(attributes['gen_ai.output.messages'])).toEqual([
      {
        role: 'assistant',
        finish_reason: 'stop',
        parts: [
          { type: 'text', content: 'Hello' },
          { type: 'blob', modality: 'audio', content: 'UklG' },
        ],
      },
    ]);
  });
});

describe('a stream through the real openai client', () => {
  it('records the time to the first chunk in seconds, within the span’s own duration', async () => {
    const stream = await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: [USER], stream: true });
    for await (const _ of stream) {
      // consume
    }
    const [span] = await h.spans(1);
    const firstChunk = span!.attributes['gen_ai.response.time_to_first_chunk'] as number;
    const duration = Number(span!.endTimeUnixNano - span!.startTimeUnixNano) / 1e9;
    expect(firstChunk).toBeGreaterThan(0);
    expect(firstChunk).toBeLessThanOrEqual(duration);
  });
});
