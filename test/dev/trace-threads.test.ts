import { describe, expect, it } from 'vitest';
import type { Client } from 'weft';
import { devClient } from './client-support.js';

/** Writes one finished call; a turn when `turn` is set (its turn_id is its own id). */
async function call(
  client: Client,
  id: string,
  fields: { thread?: string; turn?: boolean; start: string; end?: string; parent?: string },
): Promise<void> {
  await client.trace.calls.start({
    start: {
      id,
      op_name: 'chat',
      started_at: fields.start,
      attributes: {},
      inputs: {},
      thread_id: fields.thread,
      turn_id: fields.turn ? id : undefined,
      parent_id: fields.parent,
    },
  });
  if (fields.end) await client.trace.calls.end({ end: { id, ended_at: fields.end, summary: {} } });
}

describe('weft dev: threads through the Client', () => {
  it('lists a thread with its turn count, first and last turn and times', async () => {
    const { client } = await devClient();
    await call(client, 't1', { thread: 'th', turn: true, start: '2026-01-01T00:00:00.000Z', end: '2026-01-01T00:00:01.000Z' });
    await call(client, 't2', { thread: 'th', turn: true, start: '2026-01-01T00:00:05.000Z', end: '2026-01-01T00:00:08.000Z' });
    const threads = await client.trace.threads.streamQuery().collect();
    expect(threads).toEqual([
      {
        thread_id: 'th',
        turn_count: 2,
        start_time: '2026-01-01T00:00:00.000000Z',
        last_updated: '2026-01-01T00:00:08.000000Z',
        first_turn_id: 't1',
        last_turn_id: 't2',
        p50_turn_duration_ms: 2000,
        p99_turn_duration_ms: 2980,
      },
    ]);
  });

  it('counts only turns, not the calls nested inside them or calls outside any thread', async () => {
    const { client } = await devClient();
    await call(client, 'turn', { thread: 'th', turn: true, start: '2026-01-01T00:00:00.000Z', end: '2026-01-01T00:00:02.000Z' });
    await call(client, 'inner', { thread: 'th', parent: 'turn', start: '2026-01-01T00:00:00.500Z', end: '2026-01-01T00:00:01.000Z' });
    await call(client, 'lonely', { start: '2026-01-01T00:00:00.000Z', end: '2026-01-01T00:00:01.000Z' });
    const threads = await client.trace.threads.streamQuery().collect();
    expect(threads.map((t) => [t.thread_id, t.turn_count])).toEqual([['th', 1]]);
  });

  it('lists the most recently active thread first by default and follows sort_by, limit and offset', async () => {
    const { client } = await devClient();
    await call(client, 'a1', { thread: 'a', turn: true, start: '2026-01-01T00:00:00.000Z', end: '2026-01-01T00:00:01.000Z' });
    await call(client, 'b1', { thread: 'b', turn: true, start: '2026-01-01T00:01:00.000Z', end: '2026-01-01T00:01:01.000Z' });
    await call(client, 'c1', { thread: 'c', turn: true, start: '2026-01-01T00:02:00.000Z', end: '2026-01-01T00:02:01.000Z' });
    const ids = async (req: Parameters<Client['trace']['threads']['streamQuery']>[0]) =>
      (await client.trace.threads.streamQuery(req).collect()).map((t) => t.thread_id);
    expect(await ids({})).toEqual(['c', 'b', 'a']);
    expect(await ids({ sort_by: [{ field: 'thread_id', direction: 'asc' }], offset: 1, limit: 1 })).toEqual(['b']);
  });

  it('filters threads by id and by when their turns started', async () => {
    const { client } = await devClient();
    await call(client, 'a1', { thread: 'a', turn: true, start: '2026-01-01T00:00:00.000Z', end: '2026-01-01T00:00:01.000Z' });
    await call(client, 'b1', { thread: 'b', turn: true, start: '2026-01-02T00:00:00.000Z', end: '2026-01-02T00:00:01.000Z' });
    const byId = await client.trace.threads.streamQuery({ filter: { thread_ids: ['a'] } }).collect();
    expect(byId.map((t) => t.thread_id)).toEqual(['a']);
    const recent = await client.trace.threads.streamQuery({ filter: { after_datetime: '2026-01-01T12:00:00Z' } }).collect();
    expect(recent.map((t) => t.thread_id)).toEqual(['b']);
    // As the service's query reads them: an empty thread_ids is no filter, and `after` leaves out its own instant.
    const all = await client.trace.threads.streamQuery({ filter: { thread_ids: [] } }).collect();
    expect(all.map((t) => t.thread_id).sort()).toEqual(['a', 'b']);
    const after = await client.trace.threads.streamQuery({ filter: { after_datetime: '2026-01-02T00:00:00Z' } }).collect();
    expect(after).toEqual([]);
  });

  it('counts a running turn, with no duration until it ends', async () => {
    const { client } = await devClient();
    await call(client, 'open', { thread: 'th', turn: true, start: '2026-01-01T00:00:00.000Z' });
    const [thread] = await client.trace.threads.streamQuery().collect();
    expect(thread).toMatchObject({ turn_count: 1, last_updated: '2026-01-01T00:00:00.000000Z', p50_turn_duration_ms: null });
  });

  it('refuses to sort by a field threads do not have with a 400 naming it, as the service does', async () => {
    const { client } = await devClient();
    const stream = client.trace.threads.streamQuery({ sort_by: [{ field: 'op_name', direction: 'asc' }] });
    await expect(stream.collect()).rejects.toMatchObject({ status: 400, message: expect.stringContaining('Unsupported sort field: op_name') });
  });
});
