import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevService, startDevService } from 'weft/dev';
import { Client, WeftApiError, WeftAuthenticationError } from '../../../src/client/index.js';

// The client against the real local stand-in (`weft dev`), over sockets: what one writes, the other reads.
const API_KEY = 'dev-key-123456';
const PROJECT = 'team/dev';
let dev: DevService;
let client: Client;

beforeAll(async () => {
  dev = await startDevService({ port: 0, log: false, apiKey: API_KEY });
  client = new Client({ apiKey: API_KEY, project: PROJECT, baseUrl: dev.url, inferenceBaseUrl: dev.v1Url, trainingBaseUrl: dev.v1Url });
});

afterAll(async () => {
  await client.close();
  await dev.close();
});

describe('the trace client against weft dev', () => {
  it('writes a root and a child call and reads them back as a tree', async () => {
    const traceId = '0193f000-0000-7000-8000-000000000001';
    const start = (id: string, parent_id: string | undefined, at: string) =>
      client.trace.calls.start({
        start: { id, trace_id: traceId, op_name: `op-${id}`, started_at: at, attributes: {}, inputs: { id }, ...(parent_id ? { parent_id } : {}) },
      });
    await start('root-1', undefined, '2026-01-01T00:00:00.000Z');
    await start('child-1', 'root-1', '2026-01-01T00:00:01.000Z');
    await client.trace.calls.end({ end: { id: 'child-1', ended_at: '2026-01-01T00:00:02.000Z', summary: {}, output: 'c' } });
    await client.trace.calls.end({ end: { id: 'root-1', ended_at: '2026-01-01T00:00:03.000Z', summary: {}, output: 'r' } });

    const roots = await client.trace.calls.tree(traceId);
    expect(roots.map((r) => r.call.id)).toEqual(['root-1']);
    expect(roots[0]!.children.map((c) => c.call.id)).toEqual(['child-1']);
    expect(roots[0]!.call.project_id).toBe(PROJECT);
  });

  it('stores an object and reads it back by digest', async () => {
    const { digest } = await client.trace.objs.create({ obj: { object_id: 'config', val: { temperature: 0.2 } } });
    const { obj } = await client.trace.objs.read({ object_id: 'config', digest });
    expect(obj.val).toEqual({ temperature: 0.2 });
  });

  it('uploads a file and downloads the same bytes', async () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 251, 252]);
    const { digest } = await client.trace.files.create({ content: bytes, filename: 'b.bin' });
    expect(Array.from(await client.trace.files.content({ digest }))).toEqual(Array.from(bytes));
  });

  it('reports an endpoint the stand-in does not serve as an API error naming the operation', async () => {
    const error = await client.trace.evaluations.status({ call_id: 'c' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftApiError);
    expect((error as WeftApiError).status).toBe(501);
  });

  it('gets an authentication error for a wrong key, without the key in it', async () => {
    const wrong = new Client({ apiKey: 'wrong-key-987654', project: PROJECT, baseUrl: dev.url });
    const error = await wrong.trace.calls.queryStats().catch((e: unknown) => e);
    await wrong.close();
    expect(error).toBeInstanceOf(WeftAuthenticationError);
    expect(String((error as Error).message)).not.toContain('wrong-key-987654');
  });
});
