import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WeftConfigError } from '../../../src/config/index.js';
import { Client, WeftConnectionError } from '../../../src/client/index.js';
import { type RecordingServer, sendJson, startRecordingServer } from './recording-server.js';
import { settlesWithin } from '../../helpers/deadline.js';

const ENV_KEYS = ['WEFT_API_KEY', 'WEFT_PROJECT', 'WEFT_BASE_URL', 'WEFT_INFERENCE_BASE_URL', 'WEFT_TRAINING_BASE_URL'] as const;
let saved: Record<string, string | undefined>;
let server: RecordingServer;
const clients: Client[] = [];

function track(client: Client): Client {
  clients.push(client);
  return client;
}

beforeEach(async () => {
  saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
  for (const key of ENV_KEYS) delete process.env[key];
  server = await startRecordingServer((req, res) => {
    if (req.path.endsWith('/models')) sendJson(res, 200, { object: 'list', data: [] });
    else sendJson(res, 200, { status: 'ok' });
  });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
  for (const key of ENV_KEYS) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});

describe('Client', () => {
  it('takes its key, project and trace address from the environment', async () => {
    process.env.WEFT_API_KEY = 'env-key-123';
    process.env.WEFT_PROJECT = 'envteam/envproj';
    process.env.WEFT_BASE_URL = `${server.url}/traces`;
    const client = track(new Client());
    await client.trace.calls.queryStats();
    const req = server.requests[0]!;
    expect(req.path).toBe('/traces/calls/query_stats');
    expect(req.headers.authorization).toBe('Bearer env-key-123');
    expect(req.json()).toEqual({ project_id: 'envteam/envproj' });
  });

  it('prefers options over the environment', async () => {
    process.env.WEFT_PROJECT = 'envteam/envproj';
    process.env.WEFT_BASE_URL = 'http://127.0.0.1:1';
    const client = track(new Client({ project: 'opt/proj', baseUrl: server.url }));
    await client.trace.calls.queryStats();
    expect(server.requests[0]!.json()).toEqual({ project_id: 'opt/proj' });
  });

  it('sends inference requests to WEFT_INFERENCE_BASE_URL with the project header', async () => {
    process.env.WEFT_INFERENCE_BASE_URL = `${server.url}/inference/v1`;
    const client = track(new Client({ project: 'team/proj', apiKey: 'k-1234' }));
    await client.inference.models.list();
    const req = server.requests[0]!;
    expect(req.path).toBe('/inference/v1/models');
    expect(req.headers['compat-project']).toBe('team/proj');
    expect(req.headers.authorization).toBe('Bearer k-1234');
  });

  it('sends training requests to WEFT_TRAINING_BASE_URL', async () => {
    process.env.WEFT_TRAINING_BASE_URL = `${server.url}/training/v1`;
    const client = track(new Client({ project: 'team/proj' }));
    await client.training.health();
    expect(server.requests[0]!.path).toBe('/training/v1/health');
  });

  it('reuses keep-alive connections for consecutive requests', async () => {
    const ports: number[] = [];
    server.handle((_req, res, raw) => {
      ports.push(raw.socket.remotePort ?? -1);
      sendJson(res, 200, {});
    });
    const client = track(new Client({ project: 'team/proj', baseUrl: server.url }));
    for (let i = 0; i < 6; i++) await client.trace.service.health();
    // undici may open a second socket while it finishes the first response; it never opens one per request.
    expect(ports).toHaveLength(6);
    expect(new Set(ports).size).toBeLessThanOrEqual(2);
  });

  it('names the option and its variable when the project is malformed', () => {
    process.env.WEFT_PROJECT = 'no-slash';
    expect(() => new Client({ baseUrl: server.url })).toThrow(WeftConfigError);
    expect(() => new Client({ baseUrl: server.url })).toThrow(/WEFT_PROJECT/);
  });

  it('returns the trace service version as text when the service answers plain text', async () => {
    server.handle((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('1.2.3'));
    const client = track(new Client({ project: 'team/proj', baseUrl: server.url }));
    await expect(client.trace.service.version()).resolves.toBe('1.2.3');
  });

  it('fails requests after close()', async () => {
    const client = new Client({ project: 'team/proj', baseUrl: server.url, maxRetries: 0 });
    await client.trace.service.health();
    await client.close();
    const error = await client.trace.service.health().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftConnectionError);
    expect(error).toMatchObject({ code: 'WEFT_CLIENT_CLOSED', method: 'GET' });
    expect((error as Error).message).toMatch(/was not sent: the client is closed/);
    expect(server.requests).toHaveLength(1);
  });

  it('ends a request still waiting for its answer when closed, so close() settles', async () => {
    server.handle(() => {}); // never answers
    const client = new Client({ project: 'team/proj', baseUrl: server.url });
    const pending = client.trace.calls.read({ id: 'c1' }).catch((e: unknown) => e);
    await server.requestArrived();
    await settlesWithin(client.close(), 'close() with a request in flight');
    const error = await settlesWithin(pending, 'the request in flight');
    expect(error).toBeInstanceOf(WeftConnectionError);
    expect(error).toMatchObject({ code: 'WEFT_CLIENT_CLOSED', method: 'POST', path: '/call/read' });
    expect((error as Error).message).toMatch(/was cut short: the client was closed/);
  });

  it('ends a JSONL stream left open when closed, and the stream then fails', async () => {
    let timer: NodeJS.Timeout | undefined;
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/jsonl' });
      res.write('{"id":"c1"}\n');
      timer = setInterval(() => res.write('{"id":"more"}\n'), 20);
      res.on('close', () => clearInterval(timer));
    });
    const client = new Client({ project: 'team/proj', baseUrl: server.url });
    const calls = client.trace.calls.streamQuery({})[Symbol.asyncIterator]();
    expect((await calls.next()).value).toMatchObject({ id: 'c1' });
    // The loop is abandoned here, without break or return().
    await settlesWithin(client.close(), 'close() with a stream left open');
    clearInterval(timer);
    const error = await settlesWithin(drain(calls), 'the stream left open');
    expect(error).toBeInstanceOf(WeftConnectionError);
    expect(error).toMatchObject({ code: 'WEFT_CLIENT_CLOSED' });
  });

  it('ends a wait between retries when closed', async () => {
    server.handle((_req, res) => sendJson(res, 503, { detail: 'busy' }, { 'retry-after': '30' }));
    const client = new Client({ project: 'team/proj', baseUrl: server.url });
    const pending = client.trace.service.health().catch((e: unknown) => e);
    await server.requestArrived();
    await settlesWithin(client.close(), 'close() during a wait between retries');
    const error = await settlesWithin(pending, 'the request waiting to be retried');
    expect(error).toMatchObject({ code: 'WEFT_CLIENT_CLOSED' });
    expect(server.requests).toHaveLength(1);
  });

  it('can be closed twice, and twice at once', async () => {
    const client = new Client({ project: 'team/proj', baseUrl: server.url });
    await client.trace.service.health();
    await Promise.all([client.close(), client.close()]);
    await expect(client.close()).resolves.toBeUndefined();
  });
});

/** Reads an iterator to its end and returns what it threw (or undefined). */
async function drain(iterator: AsyncIterator<unknown>): Promise<unknown> {
  try {
    while (!(await iterator.next()).done) {
      // keep reading
    }
    return undefined;
  } catch (error) {
    return error;
  }
}
