import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { WeftApiError, WeftParseError, WeftRateLimitError, WeftServerError } from 'weft';
import { type LoopbackServer, sendJson, startLoopbackServer } from './loopback-server.js';
import { API_KEY, chunk, closeClients, inferenceClient, startSse } from './support.js';

let server: LoopbackServer | undefined;

afterEach(async () => {
  await closeClients();
  await server?.close();
  server = undefined;
});

const streamed = { model: 'meta-llama/Llama-3.1-8B-Instruct', messages: [{ role: 'user' as const, content: 'Hi' }], stream: true as const };

/** What a careless server puts in an error: the request's Authorization header, as received. */
function echo(authorization: string | undefined): string {
  return `bad request, you sent authorization: ${authorization}`;
}

/** Creates the streamed call and reads it to the end; returns what it threw. */
async function streamError(origin: string): Promise<WeftApiError> {
  try {
    const stream = await inferenceClient(origin).chat.completions.create(streamed, { maxRetries: 0 });
    for await (const _ of stream) {
      // Read to the end: the error arrives as an event.
    }
  } catch (error) {
    expect(error).toBeInstanceOf(WeftApiError);
    return error as WeftApiError;
  }
  throw new Error('the stream did not fail');
}

/** The key is nowhere in what a user might log: message, fields, or the whole printed error. */
function expectNoKey(error: WeftApiError): void {
  expect(error.message).not.toContain(API_KEY);
  expect(error.serverMessage).not.toContain(API_KEY);
  expect(JSON.stringify(error.detail) ?? '').not.toContain(API_KEY);
  expect(JSON.stringify(error.body) ?? '').not.toContain(API_KEY);
  expect(inspect(error, { depth: 10 })).not.toContain(API_KEY);
}

describe('a chat stream error that echoes the API key', () => {
  it('is scrubbed when it comes as an `event: error`', async () => {
    server = await startLoopbackServer((req, res) => {
      startSse(res);
      res.write(`data: ${JSON.stringify(chunk('Hel'))}\n\n`);
      res.end(`event: error\ndata: ${JSON.stringify({ message: echo(req.headers.authorization), code: 400 })}\n\n`);
    });
    const error = await streamError(server.origin);
    expect(error.serverMessage).toContain('you sent authorization: Bearer ***');
    expectNoKey(error);
  });

  it('is scrubbed when it comes as a `data: {"error": …}` event', async () => {
    server = await startLoopbackServer((req, res) => {
      startSse(res);
      res.end(`data: ${JSON.stringify({ error: { message: echo(req.headers.authorization), type: 'rate_limit_exceeded', code: 429 } })}\n\n`);
    });
    const error = await streamError(server.origin);
    expect(error).toBeInstanceOf(WeftRateLimitError);
    expectNoKey(error);
  });

  it('is scrubbed when the service answers a streamed request with one JSON error body', async () => {
    server = await startLoopbackServer((req, res) => {
      sendJson(res, 200, { error: { message: echo(req.headers.authorization), type: 'internal_error' } });
    });
    const error = await inferenceClient(server.origin)
      .chat.completions.create(streamed, { maxRetries: 0 })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(WeftServerError);
    expectNoKey(error as WeftApiError);
  });
});

it('leaves no part of the key in the error of an event that is not JSON and echoes the Authorization header', async () => {
  server = await startLoopbackServer((req, res) => {
    startSse(res);
    res.end(`data: ${req.headers.authorization}\n\n`);
  });
  const error = await inferenceClient(server.origin)
    .chat.completions.create(streamed, { maxRetries: 0 })
    .then(async (stream) => {
      for await (const _ of stream) {
        // Read to the end: the bad event throws.
      }
    })
    .then(
      () => undefined,
      (caught: unknown) => caught,
    );
  expect(error).toBeInstanceOf(WeftParseError);
  // JSON.parse quotes the text around the failure: here the header's start, `"Bearer sk-"`, the key's first characters.
  expect(inspect(error, { depth: 10 })).not.toContain(`Bearer ${API_KEY.slice(0, 3)}`);
});
