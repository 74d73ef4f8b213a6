import { afterEach, describe, expect, it } from 'vitest';
import {
  WeftAuthenticationError,
  WeftQuotaExceededError,
  WeftRateLimitError,
  WeftServerError,
} from 'weft';
import { type LoopbackServer, sendJson, startLoopbackServer } from './loopback-server.js';
import { API_KEY, inferenceClient, closeClients } from './support.js';

let server: LoopbackServer | undefined;

afterEach(async () => {
  await closeClients();
  await server?.close();
  server = undefined;
});

async function failWith(status: number, body: unknown): Promise<unknown> {
  server = await startLoopbackServer((_req, res) => sendJson(res, status, body));
  return inferenceClient(server.origin)
    .chat.completions.create({ model: 'm/x', messages: [{ role: 'user', content: 'Hi' }] }, { maxRetries: 0 })
    .then(
      () => undefined,
      (error: unknown) => error,
    );
}

describe('inference errors', () => {
  it('turns a 402 into a quota error that quotes the server', async () => {
    const message = 'You exceeded your current quota, please check your plan and billing details';
    const error = await failWith(402, { error: { message, type: 'insufficient_quota', code: 'insufficient_quota' } });
    expect(error).toBeInstanceOf(WeftQuotaExceededError);
    const quota = error as WeftQuotaExceededError;
    expect(quota.status).toBe(402);
    expect(quota.serverMessage).toBe(message);
    expect(quota.type).toBe('insufficient_quota');
    expect(quota.message).toContain('POST /chat/completions failed with 402');
  });

  it('turns a 429 into a rate-limit error, distinct from the quota error', async () => {
    const error = await failWith(429, {
      error: { message: 'Concurrency limit reached for requests', type: 'rate_limit_exceeded', code: 'rate_limit_exceeded' },
    });
    expect(error).toBeInstanceOf(WeftRateLimitError);
    expect(error).not.toBeInstanceOf(WeftQuotaExceededError);
    expect((error as WeftRateLimitError).code).toBe('rate_limit_exceeded');
    expect((error as WeftRateLimitError).message).toContain('Concurrency limit reached for requests');
  });

  it('turns a 503 into a server error with status 503', async () => {
    const error = await failWith(503, { error: { message: 'The engine is currently overloaded, please try again later' } });
    expect(error).toBeInstanceOf(WeftServerError);
    expect((error as WeftServerError).status).toBe(503);
    expect((error as WeftServerError).message).toContain('overloaded');
  });

  it('never puts the API key in an error, even when the server echoes it', async () => {
    const error = await failWith(401, { error: { message: `Authentication failed for key ${API_KEY}` } });
    expect(error).toBeInstanceOf(WeftAuthenticationError);
    expect(String((error as Error).message)).not.toContain(API_KEY);
    expect(JSON.stringify((error as WeftAuthenticationError).body)).not.toContain(API_KEY);
  });
});
