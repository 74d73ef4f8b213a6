import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client, WeftServerError } from '../../../src/client/index.js';
import { configError } from '../../helpers/config-error.js';
import type { CallSchema } from '../../../src/client/trace/types/calls.js';
import { type RecordedRequest, type RecordingServer, sendJson, startRecordingServer } from '../core/recording-server.js';
import { PROJECT } from './endpoint-cases.js';

let server: RecordingServer;
let client: Client;

function call(id: string, parent_id: string | null, started_at: string, trace_id = 't1'): CallSchema {
  return { id, parent_id, trace_id, project_id: PROJECT, op_name: `op-${id}`, started_at, attributes: {}, inputs: {} };
}

/** Answers /calls/stream_query from `calls`, honouring the request's offset and limit. */
function serveCalls(calls: CallSchema[]): void {
  server.handle((req, res) => {
    const body = req.json() as { offset?: number; limit?: number };
    const offset = body.offset ?? 0;
    const page = calls.slice(offset, body.limit === undefined ? undefined : offset + body.limit);
    res.writeHead(200, { 'content-type': 'application/jsonl' });
    res.end(page.map((c) => `${JSON.stringify(c)}\n`).join(''));
  });
}

const bodies = (requests: RecordedRequest[]) => requests.map((r) => r.json() as Record<string, unknown>);

beforeEach(async () => {
  server = await startRecordingServer();
  client = new Client({ project: PROJECT, baseUrl: server.url, backoff: { initialDelayMs: 1, maxDelayMs: 2 } });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe('calls.iterate', () => {
  const calls = Array.from({ length: 7 }, (_, i) => call(`c${i}`, null, `2026-01-01T00:00:0${i}Z`));

  it('walks every page with offset and limit until a short page', async () => {
    serveCalls(calls);
    const ids = (await client.trace.calls.iterate({}, { pageSize: 3 }).collect()).map((c) => c.id);
    expect(ids).toEqual(calls.map((c) => c.id));
    expect(bodies(server.requests).map((b) => [b.offset, b.limit])).toEqual([
      [0, 3],
      [3, 3],
      [6, 3],
    ]);
  });

  it('sorts by start time and id when the query gives no order, so pages do not overlap', async () => {
    serveCalls(calls);
    await client.trace.calls.iterate({}, { pageSize: 10 }).collect();
    expect(bodies(server.requests)[0]!.sort_by).toEqual([
      { field: 'started_at', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ]);
  });

  it('keeps the query, its filter and the project in every page request', async () => {
    serveCalls(calls);
    await client.trace.calls.iterate({ filter: { op_names: ['op-c1'] }, sort_by: [{ field: 'id', direction: 'desc' }] }, { pageSize: 4 }).collect();
    for (const body of bodies(server.requests)) {
      expect(body.project_id).toBe(PROJECT);
      expect(body.filter).toEqual({ op_names: ['op-c1'] });
      expect(body.sort_by).toEqual([{ field: 'id', direction: 'desc' }]);
    }
  });

  it('treats the query offset and limit as bounds of the whole walk', async () => {
    serveCalls(calls);
    const ids = (await client.trace.calls.iterate({ offset: 1, limit: 4 }, { pageSize: 3 }).collect()).map((c) => c.id);
    expect(ids).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(bodies(server.requests).map((b) => [b.offset, b.limit])).toEqual([
      [1, 3],
      [4, 1],
    ]);
  });

  it('sends no further page when the consumer stops', async () => {
    serveCalls(calls);
    for await (const c of client.trace.calls.iterate({}, { pageSize: 2 })) {
      if (c.id === 'c1') break;
    }
    expect(server.requests).toHaveLength(1);
  });

  it('rejects a page size that is not a positive integer', () => {
    const error = configError(() => client.trace.calls.iterate({}, { pageSize: 0 }));
    expect(error.option).toBe('pageSize');
    expect(error.message).toMatch(/`pageSize` must be a positive integer, got 0/);
  });
});

describe('calls.tree', () => {
  it('nests the calls of one trace by parent, children in start order', async () => {
    serveCalls([
      call('child-b', 'root', '2026-01-01T00:00:03Z'),
      call('root', null, '2026-01-01T00:00:00Z'),
      call('grandchild', 'child-a', '2026-01-01T00:00:02Z'),
      call('child-a', 'root', '2026-01-01T00:00:01Z'),
    ]);
    const roots = await client.trace.calls.tree('t1');
    const shape = (n: { call: CallSchema; children: unknown[] }): unknown => [n.call.id, n.children.map((c) => shape(c as never))];
    expect(roots.map(shape)).toEqual([['root', [['child-a', [['grandchild', []]]], ['child-b', []]]]]);
    expect(bodies(server.requests)[0]!.filter).toEqual({ trace_ids: ['t1'] });
  });

  it('orders siblings by microseconds, then by end time when they started together', async () => {
    serveCalls([
      { ...call('z-third', 'root', '2026-01-01T00:00:00.001500Z'), ended_at: '2026-01-01T00:00:00.002Z' },
      { ...call('a-second', 'root', '2026-01-01T00:00:00.001200Z'), ended_at: '2026-01-01T00:00:00.009Z' },
      { ...call('x-first', 'root', '2026-01-01T00:00:00.001200Z'), ended_at: '2026-01-01T00:00:00.003Z' },
      call('root', null, '2026-01-01T00:00:00Z'),
    ]);
    const [root] = await client.trace.calls.tree('t1');
    expect(root!.children.map((c) => c.call.id)).toEqual(['x-first', 'a-second', 'z-third']);
  });

  it('makes a call whose parent is missing a root', async () => {
    serveCalls([call('root', null, '2026-01-01T00:00:00Z'), call('orphan', 'gone', '2026-01-01T00:00:01Z')]);
    const roots = await client.trace.calls.tree('t1');
    expect(roots.map((r) => r.call.id)).toEqual(['root', 'orphan']);
  });

  it('breaks a parent cycle instead of losing its calls', async () => {
    serveCalls([call('a', 'b', '2026-01-01T00:00:00Z'), call('b', 'a', '2026-01-01T00:00:01Z')]);
    const roots = await client.trace.calls.tree('t1');
    expect(roots.map((r) => r.call.id)).toEqual(['a']);
    expect(roots[0]!.children.map((c) => c.call.id)).toEqual(['b']);
    expect(roots[0]!.children[0]!.children).toEqual([]);
  });
});

describe('retry decisions per endpoint', () => {
  it('retries a query sent as POST after a 503', async () => {
    let n = 0;
    server.handle((_req, res) => (++n === 1 ? sendJson(res, 503, { detail: 'busy' }) : sendJson(res, 200, { count: 3 })));
    await expect(client.trace.calls.queryStats()).resolves.toEqual({ count: 3 });
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a call start after a 503', async () => {
    server.handle((_req, res) => sendJson(res, 503, { detail: 'busy' }));
    const start = client.trace.calls.start({ start: { op_name: 'op', started_at: 'S', attributes: {}, inputs: {} } });
    await expect(start).rejects.toBeInstanceOf(WeftServerError);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a call start when the caller says it is idempotent', async () => {
    let n = 0;
    server.handle((_req, res) => (++n === 1 ? sendJson(res, 503, {}) : sendJson(res, 200, { id: 'c', trace_id: 't' })));
    const start = client.trace.calls.start(
      { start: { id: 'c', op_name: 'op', started_at: 'S', attributes: {}, inputs: {} } },
      { idempotent: true },
    );
    await expect(start).resolves.toEqual({ id: 'c', trace_id: 't' });
  });

  it('lets an explicit project_id win over the client project', async () => {
    await client.trace.calls.read({ id: 'c1', project_id: 'other/proj' });
    expect(bodies(server.requests)[0]!.project_id).toBe('other/proj');
  });
});
