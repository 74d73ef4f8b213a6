import { afterEach, describe, expect, it } from 'vitest';
import type { ChatCompletionCreateParams } from 'weft';
import { type LoopbackServer, sendJson, startLoopbackServer } from './loopback-server.js';
import { API_KEY, completion, inferenceClient, closeClients } from './support.js';

let server: LoopbackServer | undefined;

afterEach(async () => {
  await closeClients();
  await server?.close();
  server = undefined;
});

const fullRequest: ChatCompletionCreateParams = {
  model: 'meta-llama/Llama-3.1-8B-Instruct',
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21}' },
  ],
  tools: [
    {
      type: 'function',
      function: { name: 'weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    },
  ],
  tool_choice: 'auto',
  response_format: { type: 'json_object' },
  temperature: 0.2,
  max_tokens: 64,
  cache_salt: 'abc',
};

describe('inference chat.completions.create', () => {
  it('posts the body as given to /v1/chat/completions with the key and the project header', async () => {
    server = await startLoopbackServer((_req, res) => sendJson(res, 200, completion()));
    await inferenceClient(server.origin).chat.completions.create(fullRequest);

    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.headers['compat-project']).toBe('team/proj');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.json).toEqual(fullRequest);
  });

  it('returns the parsed completion', async () => {
    server = await startLoopbackServer((_req, res) => sendJson(res, 200, completion('Hi there')));
    const result = await inferenceClient(server.origin).chat.completions.create({
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(result).toEqual(completion('Hi there'));
    expect(result.choices[0]?.message.content).toBe('Hi there');
  });

  it('sends no project header when the client has no project', async () => {
    server = await startLoopbackServer((_req, res) => sendJson(res, 200, completion()));
    await inferenceClient(server.origin, {}).chat.completions.create({ model: 'm/x', messages: [{ role: 'user', content: 'Hi' }] });
    expect(server.requests[0]?.headers['compat-project']).toBeUndefined();
    expect(server.requests[0]?.headers['openai-project']).toBeUndefined();
  });

  it("sends the project under the spec's name and the hosted service's, with the same value", async () => {
    server = await startLoopbackServer((_req, res) => sendJson(res, 200, completion()));
    const client = inferenceClient(server.origin, { project: 'team/proj' });
    await client.chat.completions.create({ model: 'm/x', messages: [{ role: 'user', content: 'Hi' }] });
    await client.models.list();
    for (const request of server.requests) {
      expect(request.headers['compat-project']).toBe('team/proj');
      expect(request.headers['openai-project']).toBe('team/proj');
    }
  });

  it('sends the project under the one header name a deployment needs', async () => {
    server = await startLoopbackServer((_req, res) => sendJson(res, 200, completion()));
    const client = inferenceClient(server.origin, { project: 'team/proj', projectHeader: 'X-Project' });
    await client.chat.completions.create({ model: 'm/x', messages: [{ role: 'user', content: 'Hi' }] });
    expect(server.requests[0]?.headers['x-project']).toBe('team/proj');
    expect(server.requests[0]?.headers['compat-project']).toBeUndefined();
    expect(server.requests[0]?.headers['openai-project']).toBeUndefined();
  });

  it('rejects a project that is not team/project, naming the option', () => {
    expect(() => inferenceClient('http://127.0.0.1:1', { project: 'no-slash' })).toThrow(/`project`.*entity\/project/);
  });

  it('retries a 503 and returns the answer that follows', async () => {
    server = await startLoopbackServer((_req, res) => {
      if ((server?.requests.length ?? 0) === 1) sendJson(res, 503, { error: { message: 'The engine is currently overloaded' } });
      else sendJson(res, 200, completion());
    });
    const result = await inferenceClient(server.origin).chat.completions.create({ model: 'm/x', messages: [{ role: 'user', content: 'Hi' }] });
    expect(result.id).toBe('chatcmpl-1');
    expect(server.requests).toHaveLength(2);
  });
});

describe('inference models.list', () => {
  it('gets /v1/models with the key and the project header and returns the list', async () => {
    const list = {
      object: 'list',
      data: [
        { id: 'OpenPipe/Qwen3-14B-Instruct', object: 'model', created: 0, owned_by: 'system', root: 'OpenPipe/Qwen3-14B-Instruct' },
      ],
    };
    server = await startLoopbackServer((_req, res) => sendJson(res, 200, list));
    const result = await inferenceClient(server.origin).models.list();

    const [request] = server.requests;
    expect(request?.method).toBe('GET');
    expect(request?.url).toBe('/v1/models');
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.headers['compat-project']).toBe('team/proj');
    expect(request?.body).toBe('');
    expect(result).toEqual(list);
  });

  it('accepts an empty model list', async () => {
    server = await startLoopbackServer((_req, res) => sendJson(res, 200, { object: 'list', data: [] }));
    const result = await inferenceClient(server.origin).models.list();
    expect(result.data).toEqual([]);
  });
});
