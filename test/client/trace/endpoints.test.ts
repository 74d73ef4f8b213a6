import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WEFT_VERSION } from '../../../src/client/core/index.js';
import { Client } from '../../../src/client/index.js';
import { type RecordingServer, sendJson, startRecordingServer } from '../core/recording-server.js';
import { ENDPOINT_CASES, type EndpointCase, PROJECT } from './endpoint-cases.js';
import { templateToRegExp } from './spec-endpoints.js';

const API_KEY = 'test-key-0123456789';
const PREFIX = '/traces';

let server: RecordingServer;
let client: Client;

beforeAll(async () => {
  server = await startRecordingServer();
  // A self-managed deployment: the base URL's path prefix must be kept.
  client = new Client({ apiKey: API_KEY, project: PROJECT, baseUrl: `${server.url}${PREFIX}`, maxRetries: 0 });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

beforeEach(() => {
  server.requests.length = 0;
});

function answer(c: EndpointCase): void {
  server.handle((_req, res) => {
    const r = c.response;
    if ('json' in r) return sendJson(res, 200, r.json);
    if ('jsonl' in r) {
      res.writeHead(200, { 'content-type': 'application/jsonl' });
      res.end(r.jsonl.map((line) => JSON.stringify(line)).join('\n') + '\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from(r.bytes));
  });
}

function expectedResult(c: EndpointCase): unknown {
  const r = c.response;
  if ('json' in r) return r.json;
  if ('jsonl' in r) return r.jsonl;
  return Array.from(r.bytes);
}

describe.each(ENDPOINT_CASES)('$endpoint ($name)', (c) => {
  const [method, template] = c.endpoint.split(' ') as [string, string];

  it('sends the method, path, query, headers and body, and returns the parsed response', async () => {
    answer(c);
    const result = await c.call(client);
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect(req.method).toBe(method);
    expect(req.path).toBe(PREFIX + c.path);
    expect(c.path).toMatch(templateToRegExp(template));
    expect(req.query).toEqual(c.query ?? {});
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.headers['user-agent']).toBe(`weft/${WEFT_VERSION}`);
    expect(req.headers).toMatchObject(c.headers ?? {});
    if (c.bodyKind === 'multipart') expect(req.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    else if (c.bodyKind === 'protobuf') expect(req.headers['content-type']).toBe('application/x-protobuf');
    else if (c.body === undefined) expect(req.body.length).toBe(0);
    else {
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.json()).toEqual(c.body);
    }
    expect(result).toEqual(expectedResult(c));
  });
});
