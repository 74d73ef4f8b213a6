import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client, type ClientOptions, type RetryEvent } from '../../../src/client/index.js';
import { WeftConfigError } from '../../../src/config/index.js';
import { type RecordingServer, sendJson, startRecordingServer } from './recording-server.js';

const API_KEY = 'sk-option-checks-0123456789';
const SECRET_HEADER_VALUE = 'token-abcdef-0123456789';

let server: RecordingServer;
let retries: RetryEvent[];
const clients: Client[] = [];

function makeClient(options: ClientOptions = {}): Client {
  const client = new Client({
    apiKey: API_KEY,
    project: 'team/proj',
    baseUrl: server.url,
    backoff: { initialDelayMs: 1, maxDelayMs: 5 },
    onRetry: (event) => retries.push(event),
    ...options,
  });
  clients.push(client);
  return client;
}

/** What a call (or a constructor) threw, as a WeftConfigError. */
async function configError(run: () => unknown): Promise<WeftConfigError> {
  const error = await (async () => run())().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WeftConfigError);
  return error as WeftConfigError;
}

beforeEach(async () => {
  server = await startRecordingServer((_req, res) => sendJson(res, 200, { status: 'ok' }));
  retries = [];
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
});

describe('a header undici would refuse', () => {
  it('in the client options is refused by the Client, naming `headers` and the header', async () => {
    const error = await configError(() => makeClient({ headers: { 'bad header': 'x' } }));
    expect(error.option).toBe('headers');
    expect(error.message).toContain('`headers`');
    expect(error.message).toContain('"bad header"');
  });

  it('with CR/LF in its value is refused by the Client without showing the value', async () => {
    const error = await configError(() => makeClient({ headers: { 'x-gateway-token': `${SECRET_HEADER_VALUE}\r\nx-evil: 1` } }));
    expect(error.option).toBe('headers');
    expect(error.message).toContain('"x-gateway-token"');
    expect(error.message).not.toContain(SECRET_HEADER_VALUE);
    expect(error.message).not.toContain('x-evil');
  });

  it('in a call fails at once, before any request and without a retry', async () => {
    const client = makeClient();
    const error = await configError(() => client.trace.service.health({ headers: { 'x-a': `${SECRET_HEADER_VALUE}\nx-evil: 1` } }));
    expect(error.option).toBe('headers');
    expect(error.message).toContain('"x-a"');
    expect(error.message).not.toContain(SECRET_HEADER_VALUE);
    expect(retries).toEqual([]);
    expect(server.requests).toEqual([]);
  });

  it('as a bad name in a call fails at once too', async () => {
    const client = makeClient();
    const error = await configError(() => client.trace.service.health({ headers: { 'x:a': 'b' } }));
    expect(error.message).toContain('"x:a"');
    expect(retries).toEqual([]);
    expect(server.requests).toEqual([]);
  });

  it('is not confused with a valid one: tokens, tabs, numbers, and null to remove a default pass', async () => {
    const client = makeClient({ headers: { 'X-Team_Name.v2': 'a\tb', 'x-count': 3 as unknown as string } });
    await client.trace.service.health({ headers: { 'user-agent': null, 'x-extra': 'é' } });
    const req = server.requests[0]!;
    expect(req.headers['x-team_name.v2']).toBe('a\tb');
    expect(req.headers['x-count']).toBe('3');
    expect(req.headers['user-agent']).toBeUndefined();
  });
});

describe('an option of the wrong kind', () => {
  it('as a call signal fails, naming `signal` and what was expected', async () => {
    const client = makeClient();
    const error = await configError(() => client.trace.service.health({ signal: {} as AbortSignal }));
    expect(error.option).toBe('signal');
    expect(error.message).toContain('must be an AbortSignal, got an object');
    expect(server.requests).toEqual([]);
  });

  it('as onRetry is refused by the Client, not ignored', async () => {
    const error = await configError(() => makeClient({ onRetry: 5 as unknown as () => void }));
    expect(error.option).toBe('onRetry');
    expect(error.message).toContain('must be a function, got a number');
  });

  it('as a fractional maxRetries is refused by the Client and by a call', async () => {
    const fromClient = await configError(() => makeClient({ maxRetries: 1.5 }));
    expect(fromClient.option).toBe('maxRetries');
    expect(fromClient.message).toContain('must be a whole number ≥ 0, got 1.5');
    const client = makeClient();
    const fromCall = await configError(() => client.trace.service.health({ maxRetries: 0.5 }));
    expect(fromCall.option).toBe('maxRetries');
    expect(server.requests).toEqual([]);
  });

  it('as a string maxRetries or timeoutMs names the option and says a number was expected', async () => {
    const retries = await configError(() => makeClient({ maxRetries: '2' as unknown as number }));
    expect(retries.message).toContain('`maxRetries` must be a number ≥ 0, got the string "2"');
    const timeout = await configError(() => makeClient({ timeoutMs: '100' as unknown as number }));
    expect(timeout.option).toBe('timeoutMs');
  });

  it('as a call idempotent that is not a boolean fails, naming it', async () => {
    const client = makeClient();
    const error = await configError(() => client.trace.service.health({ idempotent: 'false' as unknown as boolean }));
    expect(error.option).toBe('idempotent');
    expect(error.message).toContain('must be true or false, got a string');
  });

  it('as headers that are not an object is refused by the Client', async () => {
    const error = await configError(() => makeClient({ headers: 'x-a: 1' as unknown as Record<string, string> }));
    expect(error.option).toBe('headers');
    expect(error.message).toContain('must be an object of header names to values, got a string');
  });
});
