import { expect } from 'vitest';
import type { ScriptedCompletion } from '../helpers/openai-server.js';

/**
 * What weft records of the loopback server's scripted replies, in one place for the tests that check the mapping
 * in-process (openai-chat.test.ts) and in child processes (child-scenarios.test.ts), so that both check the same
 * thing. Content attributes are shown parsed (see {@link withContentParsed}).
 */

/** The attributes whose values are JSON text in the semconv message schema. */
const CONTENT_KEYS = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions', 'gen_ai.tool.definitions'];

/** A span's attributes with the JSON content attributes parsed: they must be strings of valid JSON. */
export function withContentParsed(attributes: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...attributes };
  for (const key of CONTENT_KEYS) {
    if (!(key in out)) continue;
    const value = out[key];
    if (typeof value !== 'string') throw new Error(`${key} is a ${typeof value}, not a JSON string`);
    out[key] = JSON.parse(value);
  }
  return out;
}

/** `[{ role: 'user', content: 'hi' }]` as recorded. */
export const HI_INPUT = [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }];

/**
 * What every streamed call of `[{ role: 'user', content: 'hi' }]` records beyond the attributes of every call and
 * before its response: the request and the first chunk's time.
 */
export const STREAMED_HI = {
  'gen_ai.request.stream': true,
  'gen_ai.input.messages': HI_INPUT,
  'gen_ai.response.time_to_first_chunk': expect.any(Number),
};

/** What the default reply (`HELLO`) records. */
export const HELLO_OUTPUT = [{ role: 'assistant', parts: [{ type: 'text', content: 'Hello there!' }], finish_reason: 'stop' }];
export const HELLO_RESPONSE = {
  'gen_ai.response.id': 'chatcmpl-hello',
  'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
  'gen_ai.response.finish_reasons': ['stop'],
};
export const HELLO_USAGE = { 'gen_ai.usage.input_tokens': 12, 'gen_ai.usage.output_tokens': 3, 'llm.usage.total_tokens': 15 };
/** What a HELLO stream stopped after its first text chunk (by `break` or an abort) records of the response. */
export const HELLO_CUT_SHORT = {
  'gen_ai.response.id': 'chatcmpl-hello',
  'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
  // The choice did not finish: semconv's `error` keeps the list in line with the choices.
  'gen_ai.response.finish_reasons': ['error'],
  'gen_ai.output.messages': [{ role: 'assistant', parts: [{ type: 'text', content: 'Hello' }], finish_reason: 'error' }],
};

/**
 * A request that sets every parameter weft records, with a system prompt, and what it records of them and of
 * {@link DETAILED_HELLO}, beyond the attributes of every call (operation, provider, model, server).
 */
export const DETAILED_REQUEST = {
  messages: [
    { role: 'system' as const, content: 'You are terse.' },
    { role: 'user' as const, content: 'Say hello' },
  ],
  temperature: 0.3,
  top_p: 0.9,
  max_tokens: 50,
  frequency_penalty: 0.1,
  presence_penalty: 0.2,
  stop: 'END',
  seed: 7,
};
/** HELLO with a system fingerprint and usage details (cached and reasoning tokens). */
export const DETAILED_HELLO: ScriptedCompletion = {
  id: 'chatcmpl-hello',
  model: 'gpt-4o-mini-2024-07-18',
  choices: [{ content: ['Hello', ' there', '!'], finishReason: 'stop' }],
  systemFingerprint: 'fp_abc',
  usage: {
    prompt_tokens: 20,
    completion_tokens: 5,
    total_tokens: 25,
    prompt_tokens_details: { cached_tokens: 8 },
    completion_tokens_details: { reasoning_tokens: 2 },
  },
};
export const DETAILED_ATTRIBUTES = {
  'gen_ai.request.temperature': 0.3,
  'gen_ai.request.top_p': 0.9,
  'gen_ai.request.max_tokens': 50,
  'gen_ai.request.frequency_penalty': 0.1,
  'gen_ai.request.presence_penalty': 0.2,
  'gen_ai.request.stop_sequences': ['END'],
  'gen_ai.request.seed': 7,
  'gen_ai.system_instructions': [{ type: 'text', content: 'You are terse.' }],
  'gen_ai.input.messages': [{ role: 'user', parts: [{ type: 'text', content: 'Say hello' }] }],
  ...HELLO_RESPONSE,
  'openai.response.system_fingerprint': 'fp_abc',
  'gen_ai.usage.input_tokens': 20,
  'gen_ai.usage.output_tokens': 5,
  'gen_ai.usage.cache_read.input_tokens': 8,
  'gen_ai.usage.reasoning.output_tokens': 2,
  'llm.usage.total_tokens': 25,
  'gen_ai.output.messages': HELLO_OUTPUT,
};

/** A reply that calls `get_weather` for Paris, its arguments streamed in three pieces. */
export const WEATHER_CALL: ScriptedCompletion = {
  id: 'chatcmpl-tool',
  model: 'gpt-4o-mini',
  choices: [{ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: ['{"ci', 'ty":"Pa', 'ris"}'] }], finishReason: 'tool_calls' }],
  usage: { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 },
};
export const WEATHER_TOOL_DEFINITION = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
export const WEATHER_QUESTION = { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] };
export const WEATHER_TOOL_CALL = { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } };
/** What {@link WEATHER_CALL} records, asked `Weather in Paris?` with the tool defined. */
export const WEATHER_CALL_ATTRIBUTES = {
  'gen_ai.tool.definitions': [WEATHER_TOOL_DEFINITION],
  'gen_ai.input.messages': [WEATHER_QUESTION],
  'gen_ai.response.id': 'chatcmpl-tool',
  'gen_ai.response.model': 'gpt-4o-mini',
  'gen_ai.response.finish_reasons': ['tool_calls'],
  'gen_ai.usage.input_tokens': 30,
  'gen_ai.usage.output_tokens': 9,
  'llm.usage.total_tokens': 39,
  'gen_ai.output.messages': [{ role: 'assistant', parts: [WEATHER_TOOL_CALL], finish_reason: 'tool_call' }],
};

/** A reply of two choices (`n: 2`), the second cut by the token limit. */
export const TWO_CHOICES: ScriptedCompletion = {
  id: 'chatcmpl-n',
  model: 'gpt-4o-mini',
  choices: [
    { content: ['Re', 'd'], finishReason: 'stop' },
    { content: ['Blue', ' and'], finishReason: 'length' },
  ],
  usage: { prompt_tokens: 4, completion_tokens: 4, total_tokens: 8 },
};
/** What {@link TWO_CHOICES} records, asked `hi` with `n: 2`. */
export const TWO_CHOICES_ATTRIBUTES = {
  'gen_ai.request.choice.count': 2,
  'gen_ai.input.messages': HI_INPUT,
  'gen_ai.response.id': 'chatcmpl-n',
  'gen_ai.response.model': 'gpt-4o-mini',
  'gen_ai.response.finish_reasons': ['stop', 'length'],
  'gen_ai.usage.input_tokens': 4,
  'gen_ai.usage.output_tokens': 4,
  'llm.usage.total_tokens': 8,
  'gen_ai.output.messages': [
    { role: 'assistant', parts: [{ type: 'text', content: 'Red' }], finish_reason: 'stop' },
    { role: 'assistant', parts: [{ type: 'text', content: 'Blue and' }], finish_reason: 'length' },
  ],
};
