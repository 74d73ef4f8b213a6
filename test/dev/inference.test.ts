import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { countTokens } from 'weft/dev';
import { devService, get, type Json } from './support.js';

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
  },
};

/** A model the offline service lists: it answers 404 for any other, as the service does. */
const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';

async function openai() {
  const dev = await devService();
  return { dev, client: new OpenAI({ baseURL: dev.v1Url, apiKey: 'any-key', maxRetries: 0 }) };
}

describe('weft dev: the offline inference service', () => {
  it('lists models in the OpenAI list shape', async () => {
    const { client } = await openai();
    const models = await client.models.list();
    expect(models.data.length).toBeGreaterThan(0);
    expect(models.data[0]).toMatchObject({ object: 'model', created: 0, owned_by: 'system' });
    expect(models.data[0]!.id).toContain('/');
  });

  it('answers a chat completion deterministically with honest token counts', async () => {
    const { client } = await openai();
    const messages = [{ role: 'user' as const, content: 'What is 12 * 3?' }];
    const res = await client.chat.completions.create({ model: 'weft-dev/offline-echo', messages });
    const again = await client.chat.completions.create({ model: 'weft-dev/offline-echo', messages });
    expect(res.choices[0]!.message.content).toBe('12 * 3 = 36.');
    expect(again.choices[0]!.message.content).toBe(res.choices[0]!.message.content);
    expect(res.choices[0]!.finish_reason).toBe('stop');
    expect(res.usage).toEqual({
      prompt_tokens: countTokens('user: What is 12 * 3?'),
      completion_tokens: countTokens('12 * 3 = 36.'),
      total_tokens: countTokens('user: What is 12 * 3?') + countTokens('12 * 3 = 36.'),
    });
  });

  it('streams one token per chunk and ends with a usage chunk by default', async () => {
    const { client } = await openai();
    const stream = await client.chat.completions.create({
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: 'Hello there' }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('You said: Hello there');
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.completion_tokens).toBe(countTokens(text));
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBe(countTokens(text));
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
  });

  it('leaves the usage chunk out when stream_options.include_usage is false', async () => {
    const { client } = await openai();
    const stream = await client.chat.completions.create({
      model: MODEL,
      stream: true,
      stream_options: { include_usage: false },
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.usage === undefined || c.usage === null)).toBe(true);
  });

  it('calls a tool the user names, with arguments taken from the message', async () => {
    const { client } = await openai();
    const res = await client.chat.completions.create({
      model: MODEL,
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'Use get_weather: what is the weather in Paris?' }],
    });
    const choice = res.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0]!;
    expect(call.type).toBe('function');
    if (call.type !== 'function') return;
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
  });

  it('streams a tool call whose argument fragments join into the arguments', async () => {
    const { client } = await openai();
    const stream = await client.chat.completions.create({
      model: MODEL,
      stream: true,
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'get weather for "Lyon" in 3 days' }],
    });
    let args = '';
    let name = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      name += delta?.tool_calls?.[0]?.function?.name ?? '';
      args += delta?.tool_calls?.[0]?.function?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual({ city: 'Lyon', days: 3 });
    expect(finish).toBe('tool_calls');
  });

  it('answers with the tool result after a tool message', async () => {
    const { client } = await openai();
    const res = await client.chat.completions.create({
      model: MODEL,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Use get_weather for Paris' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny, 21°C' },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('Here is what get_weather returned: sunny, 21°C');
    expect(res.choices[0]!.finish_reason).toBe('stop');
  });

  it('does not call a tool when tool_choice is none', async () => {
    const { client } = await openai();
    const res = await client.chat.completions.create({
      model: MODEL,
      tools: [weatherTool],
      tool_choice: 'none',
      messages: [{ role: 'user', content: 'get_weather in Paris' }],
    });
    expect(res.choices[0]!.message.tool_calls).toBeUndefined();
  });

  it('cuts the answer at max_tokens with finish reason length', async () => {
    const { client } = await openai();
    const res = await client.chat.completions.create({
      model: MODEL,
      max_tokens: 2,
      messages: [{ role: 'user', content: 'one two three four' }],
    });
    expect(res.choices[0]!.message.content).toBe('You said');
    expect(res.choices[0]!.finish_reason).toBe('length');
    expect(res.usage!.completion_tokens).toBe(2);
  });

  it('answers a bad request with an OpenAI-style 400 naming the parameter', async () => {
    const { client } = await openai();
    const error = await client.chat.completions.create({ model: MODEL, messages: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.status).toBe(400);
    expect(bad.param).toBe('messages');
    expect(bad.type).toBe('invalid_request_error');
  });

  it('answers malformed JSON with an OpenAI-style 400', async () => {
    const { dev } = await openai();
    const res = await fetch(`${dev.v1Url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.message).toMatch(/could not parse the JSON body/);
  });

  it('serves the training service chat path with a trailing slash too', async () => {
    const { dev } = await openai();
    const res = await fetch(`${dev.v1Url}/chat/completions/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).object).toBe('chat.completion');
    expect((await get(dev.v1Url, '/models')).status).toBe(200);
  });

  it('answers a content part that is not an object with a 400 naming it', async () => {
    const { dev } = await openai();
    const res = await fetch(`${dev.v1Url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: [null] }] }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.param).toBe('messages[0].content[0]');
  });
});
