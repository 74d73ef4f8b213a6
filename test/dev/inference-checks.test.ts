import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { WeftAuthenticationError, WeftNotFoundError } from 'weft';
import { devClient } from './client-support.js';
import { devService } from './support.js';

// What the inference service refuses before it answers (reference §0, §2.2, §2.7).

const messages = [{ role: 'user' as const, content: 'Hi' }];

async function openai(options: ConstructorParameters<typeof OpenAI>[0] = {}) {
  const dev = await devService();
  return new OpenAI({ baseURL: dev.v1Url, apiKey: 'any-key', maxRetries: 0, ...options });
}

describe('weft dev: the inference service serves only the models it lists', () => {
  it('answers a model it does not list with an OpenAI-style 404 naming it', async () => {
    const client = await openai();
    const error = await client.chat.completions.create({ model: 'gpt-4o-mini', messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const notFound = error as InstanceType<typeof OpenAI.NotFoundError>;
    expect(notFound.code).toBe('model_not_found');
    expect(notFound.param).toBe('model');
    expect(notFound.message).toContain('`gpt-4o-mini` does not exist');
  });

  it('answers every model it lists, and a LoRA artifact URI', async () => {
    const client = await openai();
    const listed = (await client.models.list()).data.map((m) => m.id);
    // A LoRA artifact URI, with three slashes or with two as the training docs write it.
    for (const model of [...listed, 'wandb-artifact:///team/proj/agent:step3', 'wandb-artifact://team/proj/agent:step25']) {
      expect((await client.chat.completions.create({ model, messages })).model).toBe(model);
    }
  });

  it('turns the 404 into a WeftNotFoundError on weft’s client', async () => {
    const { client } = await devClient();
    await expect(client.inference.chat.completions.create({ model: 'm/x', messages })).rejects.toBeInstanceOf(WeftNotFoundError);
  });
});

describe('weft dev: the inference service project header', () => {
  it('refuses a Compat-Project that is not <team>/<project> with a 401 that names the header and the form', async () => {
    const client = await openai({ defaultHeaders: { 'Compat-Project': 'just-a-team' } });
    const error = await client.models.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    const message = (error as InstanceType<typeof OpenAI.AuthenticationError>).message;
    expect(message).toContain('Compat-Project');
    expect(message).toContain('<team>/<project>');
    expect(message).not.toContain('just-a-team');
    const chat = await client.chat.completions.create({ model: 'weft-dev/offline-echo', messages }).catch((e: unknown) => e);
    expect(chat).toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('checks the OpenAI-Project header that the openai package sends for its project option', async () => {
    const client = await openai({ project: 'team/proj/extra' });
    const error = await client.models.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as Error).message).toContain('OpenAI-Project');
  });

  it('accepts <team>/<project> from weft’s client and from openai', async () => {
    const { client } = await devClient();
    const completion = await client.inference.chat.completions.create({ model: 'weft-dev/offline-echo', messages });
    expect(completion.choices[0]?.message.content).toBe('You said: Hi');
    const sdk = await openai({ defaultHeaders: { 'Compat-Project': 'team/proj' }, project: 'team/proj' });
    expect((await sdk.models.list()).data.length).toBeGreaterThan(0);
  });

  it('sends a malformed project from weft’s client as a WeftAuthenticationError', async () => {
    const { client } = await devClient();
    const error = await client.inference.models.list({ headers: { 'Compat-Project': 'a/b/c' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftAuthenticationError);
    expect((error as WeftAuthenticationError).serverMessage).toContain('Compat-Project');
  });
});
