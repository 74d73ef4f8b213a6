import { afterEach, describe, expect, it } from 'vitest';
import {
  type ChatCompletionStreamChunk,
  STREAM_INCOMPLETE,
  WeftAbortError,
  WeftConnectionError,
  WeftParseError,
  WeftRateLimitError,
  WeftServerError,
} from 'weft';
import { type LoopbackServer, sendJson, startLoopbackServer } from './loopback-server.js';
import { USAGE, chunk, completion, inferenceClient, sseText, startSse, writeInPieces, closeClients } from './support.js';

let server: LoopbackServer | undefined;

afterEach(async () => {
  await closeClients();
  await server?.close();
  server = undefined;
});

const streamed = { model: 'meta-llama/Llama-3.1-8B-Instruct', messages: [{ role: 'user' as const, content: 'Hi' }], stream: true as const };

/** Serves one chunk and never ends the stream; `connectionClosed` resolves when the client hangs up. */
async function serveOneChunkThenStall(): Promise<{ origin: string; connectionClosed: Promise<void> }> {
  let closed!: () => void;
  const connectionClosed = new Promise<void>((resolve) => {
    closed = resolve;
  });
  server = await startLoopbackServer(async (_req, res) => {
    startSse(res);
    res.on('close', () => closed());
    res.write(`data: ${JSON.stringify(chunk('first'))}\n\n`);
  });
  return { origin: server.origin, connectionClosed };
}

async function collectError(stream: AsyncIterable<ChatCompletionStreamChunk>): Promise<{ chunks: ChatCompletionStreamChunk[]; error: unknown }> {
  const chunks: ChatCompletionStreamChunk[] = [];
  try {
    for await (const c of stream) chunks.push(c);
  } catch (error) {
    return { chunks, error };
  }
  return { chunks, error: undefined };
}

describe('inference streaming', () => {
  it('asks for the usage chunk unless the caller set include_usage, traced or not', async () => {
    server = await startLoopbackServer(async (_req, res) => {
      startSse(res);
      res.end(sseText());
    });
    await (await inferenceClient(server.origin).chat.completions.create(streamed)).collect();
    await (await inferenceClient(server.origin, { project: 'team/proj', tracing: false }).chat.completions.create(streamed)).collect();
    const declined = { ...streamed, stream_options: { include_usage: false } };
    await (await inferenceClient(server.origin).chat.completions.create(declined)).collect();
    const plain = { model: streamed.model, messages: streamed.messages };
    await inferenceClient(server.origin).chat.completions.create(plain).catch(() => undefined);
    const bodies = server.requests.map((r) => r.json);
    expect(bodies.slice(0, 3)).toEqual([
      { ...streamed, stream_options: { include_usage: true } },
      { ...streamed, stream_options: { include_usage: true } },
      declined,
    ]);
    // A call that is not streamed is sent as given.
    expect(bodies[3]).toEqual(plain);
  });

  it('asks for an event stream with the body as given', async () => {
    server = await startLoopbackServer(async (_req, res) => {
      startSse(res);
      res.end(sseText());
    });
    const stream = await inferenceClient(server.origin).chat.completions.create({ ...streamed, stream_options: { include_usage: true } });
    await stream.collect();
    const [request] = server.requests;
    expect(request?.headers.accept).toBe('text/event-stream');
    expect(request?.headers['compat-project']).toBe('team/proj');
    expect(request?.json).toEqual({ ...streamed, stream_options: { include_usage: true } });
  });

  it('yields every chunk, with the final usage chunk, when events and characters are split across writes', async () => {
    server = await startLoopbackServer(async (_req, res) => {
      startSse(res);
      await writeInPieces(res, sseText(), 7);
      res.end();
    });
    const stream = await inferenceClient(server.origin).chat.completions.create(streamed);
    const chunks = await stream.collect();
    expect(chunks).toEqual([chunk('Hel'), chunk('lo ✓'), chunk(null, { usage: USAGE })]);
  });

  it('skips comments, empty keep-alive events and unknown fields, and stops at [DONE]', async () => {
    server = await startLoopbackServer(async (_req, res) => {
      startSse(res);
      res.write(': connected\n\n');
      res.write('data:\n\n');
      res.write(`retry: 1000\nfoo: bar\ndata: ${JSON.stringify(chunk('a'))}\n\n`);
      res.write(`: ping\r\n\r\ndata: ${JSON.stringify(chunk('b'))}\r\n\r\n`);
      res.write('data: [DONE]\n\n');
      res.end(`data: ${JSON.stringify(chunk('after done'))}\n\n`);
    });
    const chunks = await (await inferenceClient(server.origin).chat.completions.create(streamed)).collect();
    expect(chunks.map((c) => c.choices[0]?.delta.content)).toEqual(['a', 'b']);
  });

  it('fails clearly when the connection is cut mid-stream, saying how many chunks arrived', async () => {
    server = await startLoopbackServer(async (_req, res) => {
      startSse(res);
      res.write(`data: ${JSON.stringify(chunk('partial'))}\n\n`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      res.socket?.destroy();
    });
    const stream = await inferenceClient(server.origin).chat.completions.create(streamed);
    const { chunks, error } = await collectError(stream);
    expect(chunks).toHaveLength(1);
    expect(error).toBeInstanceOf(WeftConnectionError);
    expect((error as Error).message).toMatch(/POST \/chat\/completions: the stream broke after 1 chunk\(s\), before \[DONE\]/);
  });

  it('fails clearly when the stream ends without [DONE]', async () => {
    server = await startLoopbackServer(async (_req, res) => {
      startSse(res);
      res.end(`data: ${JSON.stringify(chunk('only'))}\n\ndata: {"id":"trunc`);
    });
    const { chunks, error } = await collectError(await inferenceClient(server.origin).chat.completions.create(streamed));
    expect(chunks).toHaveLength(1);
    expect(error).toBeInstanceOf(WeftConnectionError);
    expect((error as WeftConnectionError).code).toBe(STREAM_INCOMPLETE);
    expect((error as Error).message).toMatch(/ended after 1 chunk\(s\) without \[DONE\]/);
  });

  it('turns an error event in the stream into the typed error of its code', async () => {
    server = await startLoopbackServer(async (_req, res) => {
      startSse(res);
      res.write(`data: ${JSON.stringify(chunk('a'))}\n\n`);
      res.end(`data: ${JSON.stringify({ error: { message: 'Concurrency limit reached for requests', type: 'rate_limit_exceeded', code: 429 } })}\n\n`);
    });
    const { error } = await collectError(await inferenceClient(server.origin).chat.completions.create(streamed));
    expect(error).toBeInstanceOf(WeftRateLimitError);
    expect((error as WeftRateLimitError).serverMessage).toBe('Concurrency limit reached for requests');
  });

  it('turns an error event without a status code into a server error', async () => {
    server = await startLoopbackServer(async (_req, res) => {
      startSse(res);
      res.end(`data: ${JSON.stringify({ error: { message: 'engine died', type: 'internal_error' } })}\n\n`);
    });
    const { error } = await collectError(await inferenceClient(server.origin).chat.completions.create(streamed));
    expect(error).toBeInstanceOf(WeftServerError);
    expect((error as Error).message).toContain('engine died');
  });

  it('turns an `event: error` into a typed error', async () => {
    server = await startLoopbackServer(async (_req, res) => {
      startSse(res);
      res.end('event: error\ndata: {"message":"model unloaded","code":503}\n\n');
    });
    const { error } = await collectError(await inferenceClient(server.origin).chat.completions.create(streamed));
    expect(error).toBeInstanceOf(WeftServerError);
    expect((error as WeftServerError).status).toBe(503);
    expect((error as Error).message).toContain('model unloaded');
  });

  it('rejects with the carried error when a streamed request gets a JSON error body', async () => {
    server = await startLoopbackServer((_req, res) =>
      sendJson(res, 200, { error: { message: 'Concurrency limit reached for requests', code: 429 } }),
    );
    await expect(inferenceClient(server.origin).chat.completions.create(streamed)).rejects.toBeInstanceOf(WeftRateLimitError);
  });

  it('says so when a streamed request gets one JSON completion instead of events', async () => {
    server = await startLoopbackServer((_req, res) => sendJson(res, 200, completion()));
    await expect(inferenceClient(server.origin).chat.completions.create(streamed)).rejects.toThrow(
      /asked for a stream \(stream: true\) but the service answered with one JSON body/,
    );
  });

  it('rejects with a WeftParseError naming the status and content type when a streamed request gets an HTML page', async () => {
    server = await startLoopbackServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Sign in</title>');
    });
    const error = await inferenceClient(server.origin)
      .chat.completions.create(streamed)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftParseError);
    expect(error).toMatchObject({ status: 200, contentType: 'text/html; charset=utf-8', method: 'POST', path: '/chat/completions' });
    expect((error as Error).message).toBe(
      'weft: POST /chat/completions answered 200 with a text/html body that is not an event stream (an HTML page: is the base URL that of the service, not of a web app or a login page?)',
    );
  });

  it('cancels a stream that arrived whole and was never read, without an uncaught error', async () => {
    server = await startLoopbackServer((_req, res) => {
      startSse(res);
      res.end(sseText());
    });
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', record);
    try {
      const stream = await inferenceClient(server.origin).chat.completions.create(streamed);
      // Long enough for the whole body to arrive unread.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await stream.cancel();
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('uncaughtException', record);
    }
    expect(uncaught).toEqual([]);
  });

  it('closes the connection when a stream is cancelled before it is read', async () => {
    const { origin, connectionClosed } = await serveOneChunkThenStall();
    const stream = await inferenceClient(origin).chat.completions.create(streamed);
    await stream.cancel();
    await connectionClosed;
  });

  it('closes the connection when the consumer stops early', async () => {
    const { origin, connectionClosed } = await serveOneChunkThenStall();
    const stream = await inferenceClient(origin).chat.completions.create(streamed);
    for await (const c of stream) {
      expect(c.choices[0]?.delta.content).toBe('first');
      break;
    }
    await connectionClosed;
  });

  it('stops with an abort error when the signal fires mid-stream', async () => {
    server = await startLoopbackServer(async (_req, res) => {
      startSse(res);
      res.write(`data: ${JSON.stringify(chunk('first'))}\n\n`);
    });
    const controller = new AbortController();
    const stream = await inferenceClient(server.origin).chat.completions.create(streamed, { signal: controller.signal });
    const chunks: ChatCompletionStreamChunk[] = [];
    const error = await (async () => {
      try {
        for await (const c of stream) {
          chunks.push(c);
          controller.abort();
        }
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(chunks).toHaveLength(1);
    expect(error).toBeInstanceOf(WeftAbortError);
  });

  it('refuses a second iteration of the same stream', async () => {
    server = await startLoopbackServer(async (_req, res) => {
      startSse(res);
      res.end(sseText());
    });
    const stream = await inferenceClient(server.origin).chat.completions.create(streamed);
    await stream.collect();
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/iterated once/);
  });
});
