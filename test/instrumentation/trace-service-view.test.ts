import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAIInstrumentation, op, register, type WeftHandle, withContext } from 'weft';
import { type DevService, startDevService } from 'weft/dev';
import { HELLO, type OpenAIServer, startOpenAIServer } from '../helpers/openai-server.js';

/**
 * What the trace service makes of weft's chat spans (reference trace-service.md §3): exported to `weft dev`,
 * which applies the service's span-to-call rules, and read back as calls.
 */

let dev: DevService;
let server: OpenAIServer;
let handle: WeftHandle;
const PROJECT = 'acme/chat-view';
const MODEL = 'weft-dev/offline-echo';

beforeAll(async () => {
  dev = await startDevService({ port: 0, log: false });
  server = await startOpenAIServer(HELLO);
  const instrumentation = new OpenAIInstrumentation();
  handle = register({ baseUrl: dev.url, project: PROJECT, instrumentations: [instrumentation], flushOnExit: false });
  instrumentation.manuallyInstrument(OpenAI);
});
// The default answer, whatever an earlier test scripted.
beforeEach(() => server.reply(HELLO));
afterAll(async () => {
  await handle.shutdown();
  await server.close();
  await dev.close();
});

interface Call {
  op_name: string;
  inputs: Record<string, unknown>;
  output: unknown;
  attributes: Record<string, unknown>;
  summary?: { usage?: Record<string, Record<string, number>> };
  exception?: string;
}

async function calls(): Promise<Call[]> {
  await handle.forceFlush();
  const response = await fetch(`${dev.url}/calls/stream_query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: PROJECT }),
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Call);
}

describe('a traced chat call, as the trace service reads it', () => {
  it('has the messages as inputs, the answer as output, the model, the system prompt and the full usage', async () => {
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'sk-view-test-000000', maxRetries: 0 });
    await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
      temperature: 0.5,
    });
    // The project's one call with a system prompt: the other tests' calls are in it too, whatever order they ran in.
    const call = (await calls()).find((c) => c.attributes.system !== undefined);
    // The service stores an OTel call's op as a ref to an op object named after the span: `chat gpt-4o-mini`.
    expect(call?.op_name).toMatch(/^weave:\/\/\/acme\/chat-view\/op\/chat_gpt-4o-mini:/);
    expect(call?.inputs).toEqual({ 'gen_ai.input.messages': [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }] });
    expect(call?.output).toEqual({
      'gen_ai.output.messages': [{ role: 'assistant', parts: [{ type: 'text', content: 'Hello there!' }], finish_reason: 'stop' }],
    });
    expect(call?.attributes).toMatchObject({
      model: 'gpt-4o-mini-2024-07-18',
      operation: 'chat',
      system: [{ type: 'text', content: 'Be brief.' }],
      model_parameters: expect.objectContaining({ model: 'gpt-4o-mini', temperature: 0.5 }),
    });
    expect(call?.summary?.usage).toEqual({
      'gpt-4o-mini-2024-07-18': { input_tokens: 12, output_tokens: 3, total_tokens: 15 },
    });
  });
});

describe('a streamed call and a failed call, as the trace service reads them', () => {
  const client = () => new OpenAI({ baseURL: server.baseURL, apiKey: 'sk-view-test-000000', maxRetries: 0 });

  it('a stream has the tool call it put together as output, and the usage weft asked for and hid', async () => {
    server.reply({
      id: 'chatcmpl-view-stream',
      model: 'view-stream-model',
      choices: [{ toolCalls: [{ id: 'call_7', name: 'get_weather', arguments: ['{"city":', '"Oslo"}'] }], finishReason: 'tool_calls' }],
      usage: { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 },
    });
    const stream = await client().chat.completions.create({
      model: 'view-stream-model',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      stream: true,
    });
    for await (const _chunk of stream) {
      // read to the end
    }
    const call = (await calls()).find((c) => c.op_name.includes('/op/chat_view-stream-model:'));
    expect(call?.inputs).toEqual({ 'gen_ai.input.messages': [{ role: 'user', parts: [{ type: 'text', content: 'Weather in Oslo?' }] }] });
    expect(call?.output).toEqual({
      'gen_ai.output.messages': [
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_7', name: 'get_weather', arguments: { city: 'Oslo' } }], finish_reason: 'tool_call' },
      ],
    });
    expect(call?.attributes).toMatchObject({ model: 'view-stream-model', model_parameters: expect.objectContaining({ stream: true }) });
    expect(call?.summary?.usage).toEqual({ 'view-stream-model': { input_tokens: 30, output_tokens: 9, total_tokens: 39 } });
  });

  it('a failed call has its inputs, the error as its exception, its model, and no output', async () => {
    server.reply({ status: 429, error: { message: 'Rate limit reached', type: 'requests' } });
    const error = await client()
      .chat.completions.create({ model: 'view-failing-model', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    const call = (await calls()).find((c) => c.op_name.includes('/op/chat_view-failing-model:'));
    expect(call?.inputs).toEqual({ 'gen_ai.input.messages': [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }] });
    expect(call?.output ?? null).toBeNull();
    // The service reads nothing of an error but the status message: the class goes in front, as Node prints it.
    expect((error as Error).constructor.name).toBe('RateLimitError');
    expect(call?.exception).toBe(`RateLimitError: ${(error as Error).message}`);
    expect(call?.attributes).toMatchObject({ model: 'view-failing-model', operation: 'chat' });
  });
});

describe('openai pointed at weft dev’s inference service, which sends usage unasked as the hosted one does', () => {
  it('sees the same chunks with and without weft, usage chunk included, and the call has its usage', async () => {
    const instrumentation = handle.instrumentations[0] as OpenAIInstrumentation;
    const client = new OpenAI({ baseURL: `${dev.url}/v1`, apiKey: 'sk-view-test-000000', maxRetries: 0 });
    const chunksSeen = async () => {
      const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true });
      const seen: unknown[] = [];
      // Byte for byte, but for what differs from call to call.
      for await (const chunk of stream) seen.push(JSON.stringify({ ...chunk, id: 'x', created: 0 }));
      return seen;
    };
    instrumentation.disable();
    let without: unknown[];
    try {
      without = await chunksSeen();
    } finally {
      instrumentation.enable();
    }
    const withWeft = await chunksSeen();
    expect(JSON.parse(String(without.at(-1)))).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } });
    expect(withWeft).toEqual(without);
    const call = (await calls()).find((c) => c.op_name.includes('/op/chat_weft-dev_offline-echo:') && c.summary?.usage?.[MODEL]);
    expect(call?.summary?.usage?.[MODEL]).toMatchObject({ total_tokens: expect.any(Number) });
  });
});

describe('a chat call in a withContext() scope, as the trace service reads it', () => {
  it('keeps its own model and usage key when the metadata has a model; the op around it keeps the metadata as it is', async () => {
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'sk-view-test-000000', maxRetries: 0 });
    const grade = op(async function grade_in_scope() {
      return client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'grade this' }] });
    });
    await withContext({ userId: 'user-42', sessionId: 'session-7', metadata: { model: 'my-eval-model', plan: 'pro' } }, () =>
      grade(),
    );
    const all = await calls();
    const opCall = all.find((c) => c.op_name.includes('/op/grade_in_scope:'));
    const chat = all.find((c) => c.op_name.includes('/op/chat_gpt-4o-mini:') && c.attributes.plan === 'pro');
    expect(opCall?.attributes).toMatchObject({ model: 'my-eval-model', plan: 'pro' });
    expect(chat?.attributes).toMatchObject({ model: 'gpt-4o-mini-2024-07-18', model_custom: 'my-eval-model', operation: 'chat', plan: 'pro' });
    expect(chat?.summary?.usage).toEqual({ 'gpt-4o-mini-2024-07-18': { input_tokens: 12, output_tokens: 3, total_tokens: 15 } });
    // user.id and session.id, which the service does not read, also as custom attributes, which it shows.
    for (const call of [opCall, chat]) expect(call?.attributes).toMatchObject({ user_id: 'user-42', session_id: 'session-7' });
  });
});
