import { getEventListeners } from 'node:events';
import { createReadStream, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  HttpCore,
  type HttpCoreOptions,
  MultipartBody,
  type RetryEvent,
  WEFT_VERSION,
  WeftAbortError,
  WeftApiError,
  WeftConnectionError,
  WeftNotFoundError,
  WeftParseError,
  WeftQuotaExceededError,
  WeftRateLimitError,
  WeftRequestBodyError,
  WeftServerError,
  WeftTimeoutError,
  WeftValidationError,
} from '../../../src/client/core/index.js';
import { collectGarbage } from '../../helpers/gc.js';
import { type RecordingServer, sendJson, startRecordingServer } from './recording-server.js';

const API_KEY = 'sk-test-SECRET-0123456789';

let server: RecordingServer;
let core: HttpCore;
let retries: RetryEvent[];

function makeCore(options: Partial<HttpCoreOptions> = {}): HttpCore {
  return new HttpCore({
    baseUrl: `${server.url}/traces`,
    apiKey: API_KEY,
    backoff: { initialDelayMs: 1, maxDelayMs: 5 },
    onRetry: (event) => retries.push(event),
    ...options,
  });
}

beforeEach(async () => {
  server = await startRecordingServer();
  retries = [];
  core = makeCore();
});

afterEach(async () => {
  await core.close();
  await server.close();
});

describe('requests', () => {
  it('sends method, prefixed path, query, headers and a JSON body, and returns the parsed response', async () => {
    server.handle((_req, res) => sendJson(res, 200, { id: 'c1', trace_id: 't1' }));
    const custom = makeCore({ headers: { 'Compat-Project': 'team/proj' } });
    const result = await custom.request<{ id: string }>({
      method: 'POST',
      path: '/call/start',
      query: { a: 1, ids: ['x', 'y'], skip: undefined },
      body: { start: { op_name: 'op' } },
      headers: { 'X-Extra': 'yes' },
    });
    await custom.close();
    expect(result).toEqual({ id: 'c1', trace_id: 't1' });
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/traces/call/start');
    expect(req.query).toEqual({ a: '1', ids: ['x', 'y'] });
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.headers['user-agent']).toBe(`weft/${WEFT_VERSION}`);
    expect(req.headers['compat-project']).toBe('team/proj');
    expect(req.headers['x-extra']).toBe('yes');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.json()).toEqual({ start: { op_name: 'op' } });
  });

  it('keeps a base URL without its trailing slashes, and joins it to the path with one', async () => {
    server.handle((_req, res) => sendJson(res, 200, {}));
    const slashed = makeCore({ baseUrl: `${server.url}/traces//` });
    expect(slashed.baseUrl).toBe(`${server.url}/traces`);
    await slashed.request({ method: 'GET', path: '/calls/c1' });
    await slashed.close();
    expect(server.requests[0]!.path).toBe('/traces/calls/c1');
  });

  it('sends no Authorization header when no key is set', async () => {
    const anonymous = makeCore({ apiKey: undefined });
    await anonymous.request({ method: 'GET', path: '/health' });
    await anonymous.close();
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('names the version of package.json in the User-Agent', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(WEFT_VERSION).toBe(pkg.version);
  });

  it('returns undefined for an empty body', async () => {
    server.handle((_req, res) => res.writeHead(204).end());
    await expect(core.request({ method: 'DELETE', path: '/x' })).resolves.toBeUndefined();
  });

  it('returns the bytes of a binary response', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254]);
    server.handle((_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes));
    const got = await core.bytes({ method: 'POST', path: '/file/content', body: { digest: 'd' } });
    expect(Buffer.from(got)).toEqual(bytes);
  });

  it('throws a parse error when a JSON response is not JSON', async () => {
    server.handle((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{nope'));
    await expect(core.request({ method: 'GET', path: '/x' })).rejects.toBeInstanceOf(WeftParseError);
  });

  it('throws a parse error naming status, method, path and content type when a 2xx answer is plain text', async () => {
    server.handle((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
    const error = await core.request({ method: 'POST', path: '/calls/query_stats', body: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftParseError);
    expect(error).toMatchObject({ status: 200, method: 'POST', path: '/calls/query_stats', contentType: 'text/plain' });
    expect((error as Error).message).toBe('weft: POST /calls/query_stats answered 200 with a text/plain body that is not JSON');
    expect(retries).toEqual([]);
  });

  it('says what an HTML page answering a JSON endpoint usually means, without quoting the page', async () => {
    const page = `<html><body>Sign in. Your token: ${API_KEY}</body></html>`;
    server.handle((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
    const error = await core.request({ method: 'GET', path: '/calls/c1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftParseError);
    expect(error).toMatchObject({ status: 200, contentType: 'text/html; charset=utf-8' });
    expect((error as Error).message).toContain('text/html body that is not JSON (an HTML page: is the base URL that of the service');
    expect((error as Error).message).not.toContain('Sign in');
  });

  it('returns a text answer as a string where the endpoint allows text', async () => {
    server.handle((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('0.1.0'));
    await expect(core.request({ method: 'GET', path: '/version', allowText: true })).resolves.toBe('0.1.0');
  });

  it('still throws a parse error where text is allowed, when the body claims to be JSON and is not', async () => {
    server.handle((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('0.1.0 and then'));
    await expect(core.request({ method: 'GET', path: '/version', allowText: true })).rejects.toBeInstanceOf(WeftParseError);
  });

  it('accepts any content type for bytes, JSON for a request, and JSONL for a stream, unless the call says otherwise', async () => {
    server.handle((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    await core.bytes({ method: 'GET', path: '/file' });
    await core.request({ method: 'GET', path: '/x' });
    await core.request({ method: 'GET', path: '/x', headers: { accept: 'text/csv' } });
    server.handle((_req, res) => res.writeHead(200, { 'content-type': 'application/jsonl' }).end('{}\n'));
    for await (const _ of core.jsonl({ method: 'POST', path: '/calls/stream_query', body: {} })) {
      // consume
    }
    expect(server.requests.map((r) => r.headers.accept)).toEqual(['*/*', 'application/json', 'text/csv', 'application/jsonl']);
  });
});

describe('request bodies', () => {
  it('sends bytes as application/octet-stream unless a content-type is given', async () => {
    await core.request({
      method: 'POST',
      path: '/otel/v1/traces',
      body: new Uint8Array([1, 2, 3]),
      headers: { 'content-type': 'application/x-protobuf' },
    });
    const req = server.requests[0]!;
    expect(req.headers['content-type']).toBe('application/x-protobuf');
    expect([...req.body]).toEqual([1, 2, 3]);
  });

  it('sends a multipart body with a text field, bytes, a Blob and a stream', async () => {
    const form = new MultipartBody()
      .field('project_id', 'team/proj')
      .file('bytes', new Uint8Array([104, 105]), { filename: 'a.bin' })
      .file('blob', new Blob(['blob content'], { type: 'text/plain' }), { filename: 'b.txt' })
      .file('stream', Readable.from([Buffer.from('str'), Buffer.from('eam')]), { filename: 'c.txt' });
    await core.request({ method: 'POST', path: '/file/create', body: form });
    const req = server.requests[0]!;
    const parsed = await new Response(req.body, { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
    expect(parsed.get('project_id')).toBe('team/proj');
    expect(await (parsed.get('bytes') as File).text()).toBe('hi');
    expect((parsed.get('blob') as File).name).toBe('b.txt');
    expect(await (parsed.get('blob') as File).text()).toBe('blob content');
    expect(await (parsed.get('stream') as File).text()).toBe('stream');
  });

  it('rejects with a body error when a file stream fails before it is read (a path that does not exist)', async () => {
    const missing = join(tmpdir(), `weft-missing-${process.pid}`, 'nope.bin');
    const form = new MultipartBody().field('project_id', 'team/proj').file('file', createReadStream(missing));
    const error = await core.request({ method: 'POST', path: '/file/create', body: form }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftRequestBodyError);
    expect(error).toMatchObject({ method: 'POST', path: '/file/create', code: 'ENOENT' });
    expect((error as Error).message).toContain('request body could not be read');
    expect(retries).toEqual([]);
  });

  it('rejects with a body error when a raw stream body fails before it is read', async () => {
    const early = new Readable({ read() {} });
    process.nextTick(() => early.destroy(new Error('disk gone')));
    const error = await core.request({ method: 'POST', path: '/otel/v1/traces', body: early }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftRequestBodyError);
    expect((error as Error).message).toContain('disk gone');
  });

  it('rejects with a body error when a stream body fails midway', async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('part one');
      await new Promise((resolve) => setTimeout(resolve, 20));
      throw new Error('read failed');
    }
    const form = new MultipartBody().file('file', failing());
    const error = await core.request({ method: 'POST', path: '/file/create', body: form }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftRequestBodyError);
    expect((error as Error).cause).toMatchObject({ message: 'read failed' });
  });
});

describe('retries', () => {
  it('waits for Retry-After seconds after a 429 and then succeeds', async () => {
    let calls = 0;
    server.handle((_req, res) => {
      calls++;
      if (calls === 1) sendJson(res, 429, { detail: 'slow down' }, { 'retry-after': '1' });
      else sendJson(res, 200, { ok: true });
    });
    const result = await core.request({ method: 'POST', path: '/calls/query_stats', body: {}, idempotent: true });
    expect(result).toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
    expect(retries.map((r) => r.delayMs)).toEqual([1000]);
    expect(retries[0]!.error).toBeInstanceOf(WeftRateLimitError);
  });

  it('reads Retry-After given as an HTTP date', async () => {
    let calls = 0;
    server.handle((_req, res) => {
      calls++;
      if (calls === 1) sendJson(res, 503, {}, { 'retry-after': new Date(Date.now() - 5000).toUTCString() });
      else sendJson(res, 200, {});
    });
    await core.request({ method: 'GET', path: '/x' });
    expect(retries.map((r) => r.delayMs)).toEqual([0]);
  });

  it('takes a Retry-After that is neither seconds nor an HTTP date as absent, and backs off', async () => {
    let calls = 0;
    server.handle((_req, res) => {
      calls++;
      // Date.parse reads this as a day of 2001, long past: it was a retry at once.
      if (calls === 1) sendJson(res, 503, {}, { 'retry-after': 'abc 1' });
      else sendJson(res, 200, {});
    });
    await core.request({ method: 'GET', path: '/x' });
    // The test's backoff: a first delay of 1 ms.
    expect(retries.map((r) => r.delayMs)).toEqual([1]);
  });

  it('ignores an async onRetry hook that rejects, as one that throws', async () => {
    let calls = 0;
    server.handle((_req, res) => {
      calls++;
      if (calls === 1) sendJson(res, 503, {});
      else sendJson(res, 200, { ok: true });
    });
    const logging = makeCore({ onRetry: async () => Promise.reject(new Error('logger down')) });
    try {
      await expect(logging.request({ method: 'GET', path: '/x' })).resolves.toEqual({ ok: true });
    } finally {
      await logging.close();
    }
  });

  it('retries a 503 and returns the following 200', async () => {
    let calls = 0;
    server.handle((_req, res) => (++calls === 1 ? sendJson(res, 503, { detail: 'busy' }) : sendJson(res, 200, { n: calls })));
    await expect(core.request({ method: 'GET', path: '/health' })).resolves.toEqual({ n: 2 });
  });

  it('gives up after maxRetries and throws the last error', async () => {
    server.handle((_req, res) => sendJson(res, 502, { detail: 'bad gateway' }));
    await expect(core.request({ method: 'GET', path: '/x', maxRetries: 3 })).rejects.toBeInstanceOf(WeftServerError);
    expect(server.requests).toHaveLength(4);
  });

  it('does not retry a POST that is not marked idempotent', async () => {
    server.handle((_req, res) => sendJson(res, 503, { detail: 'busy' }));
    await expect(core.request({ method: 'POST', path: '/obj/create', body: {} })).rejects.toBeInstanceOf(WeftServerError);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a POST marked retryUnprocessed after a 429 or 503, which say nothing was done, and not after a 500', async () => {
    let calls = 0;
    server.handle((_req, res) => {
      calls += 1;
      if (calls === 1) sendJson(res, 429, { detail: 'slow down' });
      else if (calls === 2) sendJson(res, 503, { detail: 'busy' });
      else sendJson(res, 200, { ok: true });
    });
    await expect(core.request({ method: 'POST', path: '/chat/completions', body: {}, retryUnprocessed: true })).resolves.toEqual({ ok: true });
    expect(server.requests).toHaveLength(3);
    server.handle((_req, res) => sendJson(res, 500, { detail: 'broke midway' }));
    await expect(core.request({ method: 'POST', path: '/chat/completions', body: {}, retryUnprocessed: true })).rejects.toBeInstanceOf(WeftServerError);
    expect(server.requests).toHaveLength(4);
  });

  it('does not send a stream body twice, even marked retryUnprocessed: it cannot be read again', async () => {
    server.handle((_req, res) => sendJson(res, 503, { detail: 'busy' }));
    const body = Readable.from([Buffer.from('line 1\n'), Buffer.from('line 2\n')]);
    await expect(core.request({ method: 'POST', path: '/upload', body, retryUnprocessed: true })).rejects.toBeInstanceOf(WeftServerError);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a 404', async () => {
    server.handle((_req, res) => sendJson(res, 404, { detail: 'no such call' }));
    await expect(core.request({ method: 'GET', path: '/x' })).rejects.toBeInstanceOf(WeftNotFoundError);
    expect(server.requests).toHaveLength(1);
  });

  it('retries an idempotent request after the connection is reset', async () => {
    let calls = 0;
    server.handle((_req, res, raw) => {
      if (++calls === 1) raw.socket.destroy();
      else sendJson(res, 200, { ok: true });
    });
    await expect(core.request({ method: 'POST', path: '/obj/read', body: {}, idempotent: true })).resolves.toEqual({ ok: true });
    expect(retries[0]!.error).toBeInstanceOf(WeftConnectionError);
  });

  it('does not retry a create after the connection is reset', async () => {
    server.handle((_req, _res, raw) => raw.socket.destroy());
    await expect(core.request({ method: 'POST', path: '/obj/create', body: {} })).rejects.toBeInstanceOf(WeftConnectionError);
    expect(server.requests).toHaveLength(1);
  });

  it('surfaces a Retry-After longer than a minute instead of waiting', async () => {
    server.handle((_req, res) => sendJson(res, 429, { detail: 'later' }, { 'retry-after': '3600' }));
    const error = await core.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftRateLimitError);
    expect((error as WeftRateLimitError).retryAfterMs).toBe(3_600_000);
    expect(server.requests).toHaveLength(1);
  });

  it('reports a refused connection as a connection error with its code', async () => {
    const port = new URL(server.url).port;
    await server.close();
    const refused = new HttpCore({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const error = await refused.request({ method: 'GET', path: '/health' }).catch((e: unknown) => e);
    await refused.close();
    server = await startRecordingServer();
    expect(error).toBeInstanceOf(WeftConnectionError);
    expect((error as WeftConnectionError).code).toBe('ECONNREFUSED');
  });
});

describe('timeouts and abort', () => {
  it('throws a timeout error when no response arrives in time', async () => {
    server.handle(() => undefined);
    const error = await core.request({ method: 'GET', path: '/slow', timeoutMs: 100, maxRetries: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftTimeoutError);
    expect((error as WeftTimeoutError).timeoutMs).toBe(100);
    expect((error as WeftTimeoutError).code).toBe('ETIMEDOUT');
  });

  it('retries a timed-out idempotent request', async () => {
    let calls = 0;
    server.handle((_req, res) => {
      if (++calls > 1) sendJson(res, 200, { ok: true });
    });
    await expect(core.request({ method: 'GET', path: '/slow', timeoutMs: 200 })).resolves.toEqual({ ok: true });
    expect(retries[0]!.error).toBeInstanceOf(WeftTimeoutError);
  });

  it('throws a timeout error when a stream goes silent', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/jsonl' });
      res.write('{"a":1}\n');
    });
    const stream = core.jsonl({ method: 'POST', path: '/calls/stream_query', body: {}, timeoutMs: 150 });
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const item of stream) seen.push(item);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([{ a: 1 }]);
    expect(error).toBeInstanceOf(WeftTimeoutError);
  });

  it('throws an abort error when the signal fires while waiting', async () => {
    server.handle(() => undefined);
    const controller = new AbortController();
    const pending = core.request({ method: 'GET', path: '/slow', signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toBeInstanceOf(WeftAbortError);
  });

  it('throws an abort error when the signal fires during the backoff', async () => {
    server.handle((_req, res) => sendJson(res, 503, {}, { 'retry-after': '30' }));
    const controller = new AbortController();
    const pending = core.request({ method: 'GET', path: '/x', signal: controller.signal });
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(WeftAbortError);
    expect(server.requests).toHaveLength(1);
  });

  it('sends nothing when the signal has already fired', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(core.request({ method: 'GET', path: '/x', signal: controller.signal })).rejects.toBeInstanceOf(WeftAbortError);
    expect(server.requests).toHaveLength(0);
  });
});

describe('errors', () => {
  it('keeps the 422 validation detail readable', async () => {
    const detail = [
      { loc: ['body', 'start', 'op_name'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'start', 'started_at'], msg: 'Input should be a valid datetime', type: 'datetime_type' },
    ];
    server.handle((_req, res) => sendJson(res, 422, { detail }, { 'x-request-id': 'req-42' }));
    const error = (await core.request({ method: 'POST', path: '/call/start', body: {} }).catch((e: unknown) => e)) as WeftValidationError;
    expect(error).toBeInstanceOf(WeftValidationError);
    expect(error.status).toBe(422);
    expect(error.method).toBe('POST');
    expect(error.path).toBe('/call/start');
    expect(error.issues).toEqual(detail);
    expect(error.requestId).toBe('req-42');
    expect(error.message).toBe(
      'weft: POST /call/start failed with 422: start.op_name: Field required; start.started_at: Input should be a valid datetime (request id req-42)',
    );
  });

  it('keeps only the entries of a 422 detail that are validation issues, and lists them', async () => {
    const issue = { loc: ['body', 'limit'], msg: 'Input should be greater than 0', type: 'greater_than' };
    server.handle((_req, res) => sendJson(res, 422, { detail: [issue, 'stray text', { msg: 'no loc' }, null] }));
    const error = (await core.request({ method: 'POST', path: '/calls/stream_query', body: {} }).catch((e: unknown) => e)) as WeftValidationError;
    expect(error.issues).toEqual([issue]);
    expect(error.message).toBe('weft: POST /calls/stream_query failed with 422: limit: Input should be greater than 0');
  });

  it('reads an OpenAI-style error body into message, type and code', async () => {
    server.handle((_req, res) =>
      sendJson(res, 402, { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'quota' } }),
    );
    const error = (await core.request({ method: 'POST', path: '/chat/completions', body: {} }).catch((e: unknown) => e)) as WeftApiError;
    expect(error).toBeInstanceOf(WeftQuotaExceededError);
    expect(error.serverMessage).toBe('You exceeded your current quota');
    expect(error.type).toBe('insufficient_quota');
    expect(error.code).toBe('quota');
  });

  it("reads the trace service's {reason} body into the message, keeping the fields beside it", async () => {
    server.handle((_req, res) => sendJson(res, 404, { reason: 'Object deleted', deleted_at: '2026-01-01T00:00:00+00:00' }));
    const error = (await core.request({ method: 'POST', path: '/obj/read', body: {} }).catch((e: unknown) => e)) as WeftApiError;
    expect(error).toBeInstanceOf(WeftNotFoundError);
    expect(error.serverMessage).toBe('Object deleted');
    expect(error.message).toContain('Object deleted');
    expect(error.detail).toEqual({ reason: 'Object deleted', deleted_at: '2026-01-01T00:00:00+00:00' });
  });

  it('uses a plain-text error body as the message', async () => {
    server.handle((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream exploded'));
    const error = (await core.request({ method: 'POST', path: '/x', body: {} }).catch((e: unknown) => e)) as WeftApiError;
    expect(error).toBeInstanceOf(WeftServerError);
    expect(error.serverMessage).toBe('upstream exploded');
  });

  it('never puts the API key in an error, even when the server echoes it', async () => {
    server.handle((req, res) => sendJson(res, 401, { detail: `bad credentials: ${req.headers.authorization}` }));
    const error = (await core.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e)) as WeftApiError;
    const everything = `${error.message} ${error.stack} ${JSON.stringify(error)} ${JSON.stringify(error.body)} ${String(error.detail)}`;
    expect(error.status).toBe(401);
    expect(everything).not.toContain(API_KEY);
    expect(error.message).toContain('bad credentials: Bearer ***');
  });

  it("never puts a credential from the core's headers in an error, whole or after its scheme", async () => {
    const proxyCredential = 'cHJveHk6cHJveHktc2VjcmV0LTQyNDI=';
    const gatewayKey = 'gw-key-canary-9f8e7d6c5b';
    const proxied = makeCore({ headers: { 'Proxy-Authorization': `Basic ${proxyCredential}`, 'x-gateway-key': gatewayKey } });
    server.handle((req, res) =>
      sendJson(res, 403, { detail: `refused ${req.headers['proxy-authorization']}; token ${String(req.headers['x-gateway-key'])}` }),
    );
    const error = (await proxied.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e)) as WeftApiError;
    const everything = `${error.message} ${error.stack} ${JSON.stringify(error)} ${JSON.stringify(error.body)} ${String(error.detail)}`;
    expect(error.status).toBe(403);
    expect(everything).not.toContain(proxyCredential);
    expect(everything).not.toContain(gatewayKey);
    expect(error.message).toContain('refused ***');
  });

  it('never puts the API key in the cause of a connection error, when the server answers with the request itself', async () => {
    // Not HTTP: the parser's error keeps the bytes it could not read, the echoed Authorization header among them.
    server.handle((req, _res, raw) => {
      raw.socket.end(`\u0000${req.method} ${req.path} HTTP/1.1\r\nauthorization: ${String(req.headers.authorization)}\r\n\r\n`);
    });
    const error = (await core.request({ method: 'GET', path: '/x', maxRetries: 0 }).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(WeftConnectionError);
    expect(error.cause).toBeInstanceOf(Error);
    expect(inspect(error, { showHidden: true, depth: 8 })).not.toContain(API_KEY);
  });

  it('says where a redirect points, and follows none: the key would go wherever a server points', async () => {
    server.handle((_req, res) => {
      res.writeHead(301, { location: 'https://elsewhere.example/traces/x' });
      res.end();
    });
    const error = (await core.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e)) as WeftApiError;
    expect(error).toBeInstanceOf(WeftApiError);
    expect(error.status).toBe(301);
    expect(error.message).toContain('Redirects are not followed: the server points to https://elsewhere.example/traces/x; check the base URL.');
    expect(server.requests).toHaveLength(1);
  });

  it('never puts the API key in the redirect it reports, when the server points to a URL that quotes it', async () => {
    server.handle((req, res) => {
      res.writeHead(302, { location: `https://elsewhere.example/login?next=${encodeURIComponent(String(req.headers.authorization))}` });
      res.end();
    });
    const error = (await core.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e)) as WeftApiError;
    expect(error.status).toBe(302);
    expect(error.message).toContain('the server points to https://elsewhere.example/login?next=');
    expect(error.message).not.toContain(API_KEY);
    expect(error.message).not.toContain(encodeURIComponent(API_KEY));
  });

  it('takes the request id from `request-id` when the server sends no `x-request-id`', async () => {
    server.handle((_req, res) => sendJson(res, 404, { detail: 'no' }, { 'request-id': 'req_42' }));
    const error = (await core.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e)) as WeftApiError;
    expect(error.requestId).toBe('req_42');
    expect(error.message).toContain('(request id req_42)');
  });

  it('never puts the API key in a request id the server echoes it into', async () => {
    server.handle((req, res) => sendJson(res, 404, { detail: 'no' }, { 'x-request-id': `id-${String(req.headers.authorization)}` }));
    const error = (await core.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e)) as WeftApiError;
    expect(error.requestId).toBe('id-Bearer ***');
    expect(error.message).not.toContain(API_KEY);
  });

  it('throws an abort error when the caller aborts while an error body is still coming', async () => {
    const controller = new AbortController();
    server.handle((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.write('{"detail":');
      setTimeout(() => controller.abort(), 50);
    });
    const error = await core.request({ method: 'GET', path: '/x', signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftAbortError);
  });

  it('never puts the API key in a connection error', async () => {
    server.handle((_req, _res, raw) => raw.socket.destroy());
    const error = (await core.request({ method: 'GET', path: '/x', maxRetries: 0 }).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(WeftConnectionError);
    expect(`${error.message} ${error.stack} ${JSON.stringify(error)}`).not.toContain(API_KEY);
  });
});

/** A JSONL body that keeps coming, a line every 5 ms, until the client hangs up. */
async function slowJsonl(_req: unknown, res: ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/jsonl' });
  for (let i = 0; i < 1000 && !res.destroyed; i++) {
    res.write(`${JSON.stringify({ i })}\n`);
    await new Promise((r) => setTimeout(r, 5));
  }
  res.end();
}

describe('JSONL streams', () => {
  it('parses lines split across chunks, including a character split mid-byte', async () => {
    const text = '{"name":"héllo"}\n\n{"n":2}\r\n{"n":3}';
    server.handle(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/jsonl' });
      for (const byte of Buffer.from(text)) {
        res.write(Buffer.from([byte]));
        await new Promise((r) => setImmediate(r));
      }
      res.end();
    });
    const items = await core.jsonl({ method: 'POST', path: '/calls/stream_query', body: {} }).collect();
    expect(items).toEqual([{ name: 'héllo' }, { n: 2 }, { n: 3 }]);
    expect(server.requests[0]!.headers.accept).toBe('application/jsonl');
  });

  it('parses lines longer than 1 MB', async () => {
    const big = 'x'.repeat(3 * 1024 * 1024);
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/jsonl' });
      res.end(`${JSON.stringify({ big })}\n${JSON.stringify({ after: true })}\n`);
    });
    const items = await core.jsonl<Record<string, unknown>>({ method: 'POST', path: '/calls/stream_query', body: {} }).collect();
    expect(items).toHaveLength(2);
    expect((items[0]!.big as string).length).toBe(big.length);
    expect(items[1]).toEqual({ after: true });
  });

  it('closes the connection when the consumer stops early', async () => {
    server.handle(slowJsonl);
    const closed = server.connectionClosed();
    const seen: unknown[] = [];
    for await (const item of core.jsonl({ method: 'POST', path: '/calls/stream_query', body: {} })) {
      seen.push(item);
      if (seen.length === 2) break;
    }
    await closed;
    expect(seen).toEqual([{ i: 0 }, { i: 1 }]);
  });

  it('throws an abort error when the signal fires mid-stream, and closes the connection', async () => {
    server.handle(slowJsonl);
    const closed = server.connectionClosed();
    const controller = new AbortController();
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const item of core.jsonl({ method: 'POST', path: '/calls/stream_query', body: {}, signal: controller.signal })) {
        seen.push(item);
        if (seen.length === 3) controller.abort();
      }
    })().catch((e: unknown) => e);
    await closed;
    expect(error).toBeInstanceOf(WeftAbortError);
    expect(seen.length).toBeGreaterThanOrEqual(3);
  });

  it('closes the connection when a raw byte stream is left early', async () => {
    server.handle(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let i = 0; i < 1000 && !res.destroyed; i++) {
        res.write(Buffer.alloc(1024, i % 256));
        await new Promise((r) => setTimeout(r, 5));
      }
      res.end();
    });
    const closed = server.connectionClosed();
    for await (const _chunk of core.stream({ method: 'POST', path: '/file/content', body: {} })) break;
    await closed;
  });

  it('releases a stream left mid-way without return() (its iterator dropped) once it is collected', async () => {
    server.handle(slowJsonl);
    let closed = false;
    void server.connectionClosed().then(() => {
      closed = true;
    });
    const signal = new AbortController().signal;
    // In a frame of its own, gone when it returns: nothing but the dropped iterator refers to the stream.
    const readTwoAndDrop = async () => {
      const iterator = core.jsonl({ method: 'POST', path: '/calls/stream_query', body: {}, signal })[Symbol.asyncIterator]();
      return [(await iterator.next()).value, (await iterator.next()).value];
    };
    expect(await readTwoAndDrop()).toEqual([{ i: 0 }, { i: 1 }]);

    const listeners = () => ({
      caller: getEventListeners(signal, 'abort').length,
      client: getEventListeners(core.closing, 'abort').length,
    });
    for (const deadline = Date.now() + 5000; !(closed && listeners().caller === 0 && listeners().client === 0) && Date.now() < deadline; ) {
      await collectGarbage();
      await new Promise((r) => setTimeout(r, 10));
    }
    expect({ closed, ...listeners() }).toEqual({ closed: true, caller: 0, client: 0 });
  });

  it('sends no request for a stream that is never iterated', async () => {
    core.jsonl({ method: 'POST', path: '/calls/stream_query', body: {} });
    await new Promise((r) => setTimeout(r, 20));
    expect(server.requests).toHaveLength(0);
  });

  it('refuses to iterate the same stream twice', async () => {
    server.handle((_req, res) => res.writeHead(200).end('{"a":1}\n'));
    const stream = core.jsonl({ method: 'POST', path: '/calls/stream_query', body: {} });
    await stream.collect();
    await expect(stream.collect()).rejects.toThrow(/already iterated/);
  });

  it('throws a parse error naming the line that is not JSON', async () => {
    server.handle((_req, res) => res.writeHead(200).end('{"a":1}\nnot json\n'));
    await expect(core.jsonl({ method: 'POST', path: '/calls/stream_query', body: {} }).collect()).rejects.toThrow(/line 2/);
  });

  it('throws the API error of a stream that fails before its body', async () => {
    server.handle((_req, res) => sendJson(res, 404, { detail: 'no project' }));
    await expect(core.jsonl({ method: 'POST', path: '/calls/stream_query', body: {} }).collect()).rejects.toBeInstanceOf(
      WeftNotFoundError,
    );
  });
});
