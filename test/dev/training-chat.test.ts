import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { WeftBadRequestError, WeftValidationError } from 'weft';
import { devClient } from './client-support.js';
import { devService } from './support.js';

// weft dev serves both services under one /v1: `/v1/chat/completions` is the inference service's (OpenAI
// errors), `/v1/chat/completions/` the training service's (FastAPI's ChatCompletionRequest and 422s, reference
// §1.6, §1.8).

async function openai() {
  const dev = await devService();
  return new OpenAI({ baseURL: dev.v1Url, apiKey: 'any-key', maxRetries: 0 });
}

describe('weft dev: the training service chat endpoint', () => {
  it('answers a request without a model, which only the inference service requires', async () => {
    const client = await openai();
    const completion = await client.post<OpenAI.ChatCompletion>('/chat/completions/', {
      body: { messages: [{ role: 'user', content: 'What is 2 + 2?' }] },
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message.content).toBe('2 + 2 = 4.');
  });

  it('answers a request without messages with a FastAPI 422 naming the field', async () => {
    const client = await openai();
    const error = await client.post('/chat/completions/', { body: { model: 'wandb-artifact:///e/p/m:step1' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect((error as InstanceType<typeof OpenAI.UnprocessableEntityError>).error).toEqual({
      detail: [{ loc: ['body', 'messages'], msg: 'Field required', type: 'missing' }],
    });
  });

  it('turns a bad body into a WeftValidationError on the training client, and a 400 on the inference client', async () => {
    const { client } = await devClient();
    const body = { model: 'OpenPipe/Qwen3-14B-Instruct', messages: [{ role: 'user' as const, content: 'hi' }], n: 0 };
    const training = await client.training.chat.completions.create(body, { trailingSlash: true }).catch((e: unknown) => e);
    expect(training).toBeInstanceOf(WeftValidationError);
    expect((training as WeftValidationError).issues[0]?.loc).toEqual(['body', 'n']);
    const inference = await client.inference.chat.completions.create(body).catch((e: unknown) => e);
    expect(inference).toBeInstanceOf(WeftBadRequestError);
    expect((inference as WeftBadRequestError).body).toMatchObject({ error: { param: 'n' } });
  });

  it('streams like the inference service', async () => {
    const { client } = await devClient();
    const stream = await client.training.chat.completions.create(
      { model: 'wandb-artifact:///local/proj/agent:step2', messages: [{ role: 'user', content: 'Hello' }], stream: true },
      { trailingSlash: true },
    );
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('You said: Hello');
  });
});
