import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client, WeftServerError } from '../../../src/client/index.js';
import { type RecordedRequest, type RecordingServer, sendJson, startRecordingServer } from '../core/recording-server.js';
import { PROJECT } from './endpoint-cases.js';

let server: RecordingServer;
let client: Client;

async function formOf(req: RecordedRequest): Promise<FormData> {
  return new Response(req.body, { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
}

beforeEach(async () => {
  server = await startRecordingServer((_req, res) => sendJson(res, 200, { digest: 'd1' }));
  client = new Client({ project: PROJECT, baseUrl: server.url, backoff: { initialDelayMs: 1, maxDelayMs: 2 } });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe('files.create', () => {
  it('uploads bytes as multipart with project_id and file', async () => {
    const res = await client.trace.files.create({ content: new Uint8Array([104, 105]), filename: 'hi.txt', contentType: 'text/plain' });
    expect(res).toEqual({ digest: 'd1' });
    const form = await formOf(server.requests[0]!);
    expect(form.get('project_id')).toBe(PROJECT);
    const file = form.get('file') as File;
    expect(file.name).toBe('hi.txt');
    expect(file.type).toBe('text/plain');
    expect(await file.text()).toBe('hi');
  });

  it('uploads a Blob with its own type', async () => {
    await client.trace.files.create({ content: new Blob(['{"a":1}'], { type: 'application/json' }), filename: 'a.json' });
    const file = (await formOf(server.requests[0]!)).get('file') as File;
    expect(file.type).toBe('application/json');
    expect(await file.text()).toBe('{"a":1}');
  });

  it('uploads a stream without knowing its length', async () => {
    const chunks = Array.from({ length: 50 }, (_, i) => Buffer.from(`chunk-${i};`));
    await client.trace.files.create({ content: Readable.from(chunks), filename: 'big.bin' });
    const req = server.requests[0]!;
    expect(req.headers['transfer-encoding']).toBe('chunked');
    const file = (await formOf(req)).get('file') as File;
    expect(await file.text()).toBe(Buffer.concat(chunks).toString());
  });

  it('retries an upload of bytes after a 503 (the digest comes from the content)', async () => {
    let n = 0;
    server.handle((_req, res) => (++n === 1 ? sendJson(res, 503, {}) : sendJson(res, 200, { digest: 'd1' })));
    await client.trace.files.create({ content: new Uint8Array([1]), filename: 'x' });
    expect(server.requests).toHaveLength(2);
    expect(await ((await formOf(server.requests[1]!)).get('file') as File).text()).toBe('\u0001');
  });

  it('does not retry an upload of a stream, which cannot be read twice', async () => {
    server.handle((_req, res) => sendJson(res, 503, {}));
    const upload = client.trace.files.create({ content: Readable.from([Buffer.from('once')]), filename: 'x' });
    await expect(upload).rejects.toBeInstanceOf(WeftServerError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('files.content', () => {
  const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

  it('returns the bytes of a file', async () => {
    server.handle((_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes));
    const got = await client.trace.files.content({ digest: 'd1' });
    expect(Buffer.from(got)).toEqual(bytes);
    expect(server.requests[0]!.json()).toEqual({ project_id: PROJECT, digest: 'd1' });
  });

  it('streams the bytes of a file in chunks', async () => {
    server.handle(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let i = 0; i < bytes.length; i += 64) {
        res.write(bytes.subarray(i, i + 64));
        await new Promise((r) => setImmediate(r));
      }
      res.end();
    });
    const chunks: Uint8Array[] = [];
    for await (const chunk of client.trace.files.contentStream({ digest: 'd1' })) chunks.push(chunk);
    expect(Buffer.concat(chunks)).toEqual(bytes);
  });
});
