import { request as rawRequest } from 'node:http';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { SPEC_PATHS } from 'weft/dev';
import { devService, get, post, request, startBody } from './support.js';

describe('weft dev: routing and bad input', () => {
  it('answers 501 with a body naming the operation for a spec path it does not serve', async () => {
    const dev = await devService();
    const res = await post(dev.url, '/evaluations/evaluate_model', { project_id: 'team/proj', evaluation_ref: 'e', model_ref: 'm' });
    expect(res.status).toBe(501);
    expect(res.body.detail).toContain('Evaluate Model');
    expect(res.body.detail).toContain('POST /evaluations/evaluate_model');
  });

  it('answers 501, never 404, for every spec path with placeholders filled in', async () => {
    const dev = await devService();
    for (const [method, path] of SPEC_PATHS) {
      const concrete = path.replace(/\{[^}]+\}/g, 'x');
      const res = await fetch(`${dev.url}${concrete}`, { method });
      expect([200, 400, 404, 415, 422, 501], `${method} ${path} → ${res.status}`).toContain(res.status);
      // A 404 of a route that serves the path (a trace route's `reason`), not the router's for a path it does not know.
      if (res.status === 404) expect(JSON.stringify(await res.json()), `${method} ${path}`).not.toMatch(/not a route/);
      else await res.arrayBuffer();
    }
  });

  // A web page in the developer's browser can POST text/plain (or a form) to 127.0.0.1 with no CORS preflight.
  it('reads a JSON body only when the request says it is JSON: a page cannot delete or write through a simple POST', async () => {
    const dev = await devService();
    const started = await post(dev.url, '/call/start', startBody());
    const id = (started.body as { id: string }).id;
    const forged = await request(`${dev.url}/calls/delete`, 'POST', JSON.stringify({ project_id: 'team/proj', call_ids: [id] }), {
      'content-type': 'text/plain',
    });
    expect(forged.status).toBe(415);
    expect(forged.body.reason).toContain('Content-Type: application/json');
    const read = await post(dev.url, '/calls/query_stats', { project_id: 'team/proj' });
    expect(read.body).toMatchObject({ count: 1 });
  });

  it('answers no page of another site, whatever it sends: OTLP bytes as text/plain, a form', async () => {
    const dev = await devService();
    const forged = await fetch(`${dev.url}/otel/v1/traces`, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site' },
      body: new Uint8Array([10, 0]),
    });
    await forged.arrayBuffer();
    expect(forged.status).toBe(403);
    const form = await fetch(`${dev.url}/file/create`, { method: 'POST', headers: { origin: 'null', 'sec-fetch-site': 'cross-site' }, body: new FormData() });
    await form.arrayBuffer();
    expect(form.status).toBe(403);
    // A page served from this machine may call it.
    const local = await request(`${dev.url}/calls/query_stats`, 'POST', { project_id: 'team/proj' }, { origin: 'http://localhost:3000' });
    expect(local.status).toBe(200);
  });

  it('serves this machine only when bound to it: a request naming another host (DNS rebinding) is refused', async () => {
    const dev = await devService();
    const port = Number(new URL(dev.url).port);
    const statusFor = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = rawRequest({ host: '127.0.0.1', port, path: '/calls/query_stats', method: 'POST', headers: { host, 'content-type': 'application/json' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(JSON.stringify({ project_id: 'team/proj' }));
      });
    expect(await statusFor('attacker.example')).toBe(421);
    expect(await statusFor(`attacker.example:${port}`)).toBe(421);
    expect(await statusFor(`localhost:${port}`)).toBe(200);
    expect(await statusFor(`127.0.0.1:${port}`)).toBe(200);
    expect(await statusFor(`[::1]:${port}`)).toBe(200);
  });

  it('answers 404 JSON for an unknown path and 405 for a known path with another method', async () => {
    const dev = await devService();
    const missing = await get(dev.url, '/no/such/thing');
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toMatch(/GET \/no\/such\/thing/);
    expect((await get(dev.url, '/call/start')).status).toBe(405);
  });

  it('words a 405 on an inference path as OpenAI does, as the routes of that path word their errors', async () => {
    const dev = await devService();
    for (const [method, path] of [['GET', '/v1/chat/completions'], ['POST', '/v1/models'], ['DELETE', '/v1/models/']] as const) {
      const res = await request(`${dev.url}${path}`, method);
      expect(res.status).toBe(405);
      expect(res.body).toEqual({ error: expect.objectContaining({ message: expect.stringMatching(/Method Not Allowed/) }) });
    }
  });

  it('words a 405 on the training chat path and a 404 under /v1 as FastAPI does', async () => {
    const dev = await devService();
    const wrongMethod = await get(dev.url, '/v1/chat/completions/');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body).toEqual({ detail: expect.stringMatching(/Method Not Allowed/) });
    const missing = await get(dev.url, '/v1/no/such/thing');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: expect.stringMatching(/not a route of weft dev/) });
  });

  it('answers malformed JSON with a FastAPI-style 422 and keeps serving', async () => {
    const dev = await devService();
    const res = await request(`${dev.url}/call/start`, 'POST', '{"start": ');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
    expect((await get(dev.url, '/health')).status).toBe(200);
  });

  it('answers a wrong type with a 422 that names the field', async () => {
    const dev = await devService();
    const res = await post(dev.url, '/call/start', startBody({ inputs: 'not an object' }));
    expect(res.body.detail).toEqual([{ loc: ['body', 'start', 'inputs'], msg: 'Input should be a valid dictionary or object', type: 'dict_type' }]);
  });

  it('refuses a body over the size limit with a 413', async () => {
    const dev = await devService({ maxBodyBytes: 1000 });
    const res = await post(dev.url, '/call/start', startBody({ inputs: { big: 'x'.repeat(5000) } }));
    expect(res.status).toBe(413);
    expect((await get(dev.url, '/health')).status).toBe(200);
  });

  it('answers a client that disconnects mid-body without crashing', async () => {
    const dev = await devService();
    await new Promise<void>((resolve) => {
      const req = rawRequest(`${dev.url}/call/start`, { method: 'POST', headers: { 'content-length': '1000' } });
      req.on('error', () => resolve());
      req.write('{"start":');
      setImmediate(() => {
        req.destroy();
        resolve();
      });
    });
    expect((await get(dev.url, '/health')).status).toBe(200);
  });

  it('serves /health, /server_info and /version', async () => {
    const dev = await devService();
    expect((await get(dev.url, '/health')).body).toEqual({ status: 'ok' });
    expect((await get(dev.url, '/server_info')).body).toMatchObject({ min_required_weave_python_version: expect.any(String) });
    expect(typeof (await get(dev.url, '/version')).body).toBe('string');
  });
});

describe('weft dev: authentication', () => {
  it('accepts any key, or none, by default', async () => {
    const dev = await devService();
    expect((await post(dev.url, '/calls/query_stats', { project_id: 'a/b' })).status).toBe(200);
    expect((await post(dev.url, '/calls/query_stats', { project_id: 'a/b' }, { authorization: 'Bearer whatever' })).status).toBe(200);
  });

  it('requires the configured Bearer key and never echoes what was sent', async () => {
    const dev = await devService({ apiKey: 'right-key' });
    const none = await post(dev.url, '/calls/query_stats', { project_id: 'a/b' });
    const wrong = await post(dev.url, '/calls/query_stats', { project_id: 'a/b' }, { authorization: 'Bearer wrong-key-123' });
    const right = await post(dev.url, '/calls/query_stats', { project_id: 'a/b' }, { authorization: 'Bearer right-key' });
    expect(none.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(JSON.stringify(wrong.body)).not.toContain('wrong-key-123');
    expect(JSON.stringify(wrong.body)).not.toContain('right-key');
    expect(right.status).toBe(200);
  });

  it('rejects Basic auth when a Bearer key is required', async () => {
    const dev = await devService({ apiKey: 'k' });
    const basic = `Basic ${Buffer.from('api:k').toString('base64')}`;
    expect((await post(dev.url, '/calls/query_stats', { project_id: 'a/b' }, { authorization: basic })).status).toBe(401);
  });

  it('answers the inference service 401 in the OpenAI error shape', async () => {
    const dev = await devService({ apiKey: 'k' });
    const client = new OpenAI({ baseURL: dev.v1Url, apiKey: 'nope', maxRetries: 0 });
    const error = await client.models.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    const ok = new OpenAI({ baseURL: dev.v1Url, apiKey: 'k', maxRetries: 0 });
    expect((await ok.models.list()).data.length).toBeGreaterThan(0);
  });

  it('protects the OTLP endpoint too', async () => {
    const dev = await devService({ apiKey: 'k' });
    const res = await fetch(`${dev.url}/otel/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: new Uint8Array() });
    expect(res.status).toBe(401);
  });
});
