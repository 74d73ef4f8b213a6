import { afterEach, describe, expect, it } from 'vitest';
import { Client, type RetryEvent, WeftConnectionError, WeftRateLimitError, WeftServerError, WeftTimeoutError } from 'weft';
import { deadOrigin } from '../../helpers/dead-origin.js';
import { type LoopbackServer, sendJson, startLoopbackServer } from './loopback-server.js';
import { closeClients, completion, inferenceClient, sseText, startSse } from './support.js';

let server: LoopbackServer | undefined;

afterEach(async () => {
  await closeClients();
  await server?.close();
  server = undefined;
});

const body = { model: 'm/x', messages: [{ role: 'user' as const, content: 'Hi' }] };
const streamed = { ...body, stream: true as const };

/** A server that answers the first request with `status`, and every later one with a completion. */
async function failFirstWith(status: number): Promise<LoopbackServer> {
  server = await startLoopbackServer((_req, res) => {
    if ((server?.requests.length ?? 0) === 1) sendJson(res, status, { error: { message: `first attempt: ${status}` } });
    else sendJson(res, 200, completion());
  });
  return server;
}

/** Resolves to what the promise rejected with, or undefined. */
function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('chat completion retries, a call that is billed', () => {
  it('does not resend a completion after a 500, which may have run', async () => {
    const s = await failFirstWith(500);
    const error = await rejection(inferenceClient(s.origin).chat.completions.create(body));
    expect(error).toBeInstanceOf(WeftServerError);
    expect(s.requests).toHaveLength(1);
  });

  it('does not resend a streamed completion after a 502', async () => {
    const s = await failFirstWith(502);
    const error = await rejection(inferenceClient(s.origin).chat.completions.create(streamed));
    expect(error).toBeInstanceOf(WeftServerError);
    expect(s.requests).toHaveLength(1);
  });

  it('does not resend a completion whose answer timed out after it was sent', async () => {
    server = await startLoopbackServer(() => {
      // Never answers: the request arrived, so the service may be running it.
    });
    const error = await rejection(inferenceClient(server.origin).chat.completions.create(body, { timeoutMs: 200 }));
    expect(error).toBeInstanceOf(WeftTimeoutError);
    expect(server.requests).toHaveLength(1);
  });

  it('resends a completion after a 429, which the service did not run', async () => {
    const s = await failFirstWith(429);
    const result = await inferenceClient(s.origin).chat.completions.create(body);
    expect(result.id).toBe('chatcmpl-1');
    expect(s.requests).toHaveLength(2);
  });

  it('resends a streamed completion after a 503, which the service did not run', async () => {
    server = await startLoopbackServer((_req, res) => {
      if ((server?.requests.length ?? 0) === 1) return sendJson(res, 503, { error: { message: 'overloaded' } });
      startSse(res);
      res.end(sseText());
    });
    const stream = await inferenceClient(server.origin).chat.completions.create(streamed);
    let chunks = 0;
    for await (const _ of stream) chunks += 1;
    expect(chunks).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(2);
  });

  it('retries a connection refused before the request was sent', async () => {
    const origin = await deadOrigin();
    const retries: RetryEvent[] = [];
    const client = new Client({
      apiKey: 'not-a-key',
      inferenceBaseUrl: `${origin}/v1`,
      backoff: { initialDelayMs: 1, maxDelayMs: 5 },
      onRetry: (event) => retries.push(event),
    });
    try {
      const error = await rejection(client.inference.chat.completions.create(body, { maxRetries: 1 }));
      expect(error).toBeInstanceOf(WeftConnectionError);
      expect(retries.map((r) => r.attempt)).toEqual([2]);
    } finally {
      await client.close();
    }
  });

  it('resends after a 500 when the caller says the call is idempotent', async () => {
    const s = await failFirstWith(500);
    const result = await inferenceClient(s.origin).chat.completions.create(body, { idempotent: true });
    expect(result.id).toBe('chatcmpl-1');
    expect(s.requests).toHaveLength(2);
  });

  it('still resends after a 429 when the caller says idempotent: false, since nothing ran', async () => {
    const s = await failFirstWith(429);
    const result = await inferenceClient(s.origin).chat.completions.create(body, { idempotent: false });
    expect(result.id).toBe('chatcmpl-1');
    expect(s.requests).toHaveLength(2);
  });

  it('does not resend after a 500 when the caller says idempotent: false', async () => {
    const s = await failFirstWith(500);
    const error = await rejection(inferenceClient(s.origin).chat.completions.create(body, { idempotent: false }));
    expect(error).toBeInstanceOf(WeftServerError);
    expect(s.requests).toHaveLength(1);
  });

  it('gives up on a 429 after maxRetries like any retry', async () => {
    server = await startLoopbackServer((_req, res) => sendJson(res, 429, { error: { message: 'slow down' } }));
    const error = await rejection(inferenceClient(server.origin).chat.completions.create(body, { maxRetries: 1 }));
    expect(error).toBeInstanceOf(WeftRateLimitError);
    expect(server.requests).toHaveLength(2);
  });
});
