import { describe, expect, it } from 'vitest';
import type { Client } from 'weft';
import { devClient, PROJECT } from './client-support.js';

/** Writes finished calls with these ids. */
async function calls(client: Client, ...ids: string[]): Promise<void> {
  for (const id of ids) {
    await client.trace.calls.start({ start: { id, op_name: 'answer', started_at: '2026-01-01T00:00:00.000Z', attributes: {}, inputs: {} } });
    await client.trace.calls.end({ end: { id, ended_at: '2026-01-01T00:00:01.000Z', summary: {} } });
  }
}

const newQueue = (client: Client, name = 'Review') => client.trace.annotationQueues.create({ name, scorer_refs: ['weave:///team/proj/object/s:d'] });

describe('weft dev: annotation queues through the Client', () => {
  it('creates a queue and reads it back with the service-filled fields', async () => {
    const { client } = await devClient();
    const { id } = await newQueue(client);
    const { queue } = await client.trace.annotationQueues.read(id);
    expect(queue).toEqual({
      id,
      project_id: PROJECT,
      name: 'Review',
      description: '',
      scorer_refs: ['weave:///team/proj/object/s:d'],
      created_at: expect.any(String),
      created_by: expect.any(String),
      updated_at: queue.created_at,
      deleted_at: null,
    });
  });

  it('lists queues whose name contains a string, ignoring case', async () => {
    const { client } = await devClient();
    await newQueue(client, 'Hallucination review');
    await newQueue(client, 'Tone');
    const found = await client.trace.annotationQueues.streamQuery({ name: 'REVIEW' }).collect();
    expect(found.map((q) => q.name)).toEqual(['Hallucination review']);
  });

  it('updates only the fields sent and moves updated_at', async () => {
    const { client } = await devClient();
    const { id } = await newQueue(client);
    const before = (await client.trace.annotationQueues.read(id)).queue;
    await new Promise((r) => setTimeout(r, 5));
    const res = await client.trace.annotationQueues.update(id, { description: 'check facts' });
    expect(res.queue).toMatchObject({ name: 'Review', description: 'check facts', scorer_refs: before.scorer_refs });
    expect(res.queue!.updated_at > before.updated_at).toBe(true);
  });

  it('deletes a queue: it no longer reads or lists', async () => {
    const { client } = await devClient();
    const { id } = await newQueue(client);
    await client.trace.annotationQueues.delete(id);
    await expect(client.trace.annotationQueues.read(id)).rejects.toMatchObject({ status: 404 });
    expect(await client.trace.annotationQueues.streamQuery().collect()).toEqual([]);
  });

  it('adds calls once, counting the ones already queued as duplicates', async () => {
    const { client } = await devClient();
    await calls(client, 'c1', 'c2');
    const { id } = await newQueue(client);
    expect(await client.trace.annotationQueues.addCalls(id, { call_ids: ['c1'], display_fields: ['inputs'] })).toEqual({ added_count: 1, duplicates: 0 });
    expect(await client.trace.annotationQueues.addCalls(id, { call_ids: ['c1', 'c2'], display_fields: ['inputs'] })).toEqual({
      added_count: 1,
      duplicates: 1,
    });
  });

  it('lists items with the call they point at, their state and, when asked, their position', async () => {
    const { client } = await devClient();
    await calls(client, 'c1', 'c2');
    const { id } = await newQueue(client);
    await client.trace.annotationQueues.addCalls(id, { call_ids: ['c1', 'c2'], display_fields: ['output'] });
    const { items } = await client.trace.annotationQueues.queryItems(id, { include_position: true });
    expect(items.map((i) => [i.call_id, i.position_in_queue])).toEqual([
      ['c1', 1],
      ['c2', 2],
    ]);
    expect(items[0]).toMatchObject({
      queue_id: id,
      call_op_name: 'answer',
      call_trace_id: expect.any(String),
      call_started_at: '2026-01-01T00:00:00.000000Z',
      call_ended_at: '2026-01-01T00:00:01.000000Z',
      display_fields: ['output'],
      annotation_state: 'unstarted',
    });
  });

  it('sets an item’s review state, which the item filter and the stats then see', async () => {
    const { client } = await devClient();
    await calls(client, 'c1', 'c2');
    const { id } = await newQueue(client);
    await client.trace.annotationQueues.addCalls(id, { call_ids: ['c1', 'c2'], display_fields: [] });
    const { items } = await client.trace.annotationQueues.queryItems(id);
    const res = await client.trace.annotationQueues.updateItemProgress(id, items[0]!.id, { annotation_state: 'completed' });
    expect(res.item).toMatchObject({ id: items[0]!.id, annotation_state: 'completed' });
    const done = await client.trace.annotationQueues.queryItems(id, { filter: { annotation_states: ['completed'] } });
    expect(done.items.map((i) => i.call_id)).toEqual(['c1']);
    expect(await client.trace.annotationQueues.stats({ queue_ids: [id] })).toEqual({ stats: [{ queue_id: id, total_items: 2, completed_items: 1 }] });
  });

  it('refuses a review state that does not exist with a 422 listing the allowed ones', async () => {
    const { client } = await devClient();
    await calls(client, 'c1');
    const { id } = await newQueue(client);
    await client.trace.annotationQueues.addCalls(id, { call_ids: ['c1'], display_fields: [] });
    const { items } = await client.trace.annotationQueues.queryItems(id);
    // biome-ignore lint/suspicious/noExplicitAny: the point is a state the types would refuse
    const error = await client.trace.annotationQueues.updateItemProgress(id, items[0]!.id, { annotation_state: 'done' as any }).catch((e) => e);
    expect(error).toMatchObject({ status: 422, message: expect.stringContaining('in_progress') });
  });

  it('skips ids that name no call, counting them neither added nor duplicate, as the service does', async () => {
    const { client } = await devClient();
    const { id } = await newQueue(client);
    await calls(client, 'c1');
    expect(await client.trace.annotationQueues.addCalls(id, { call_ids: ['ghost', 'c1'], display_fields: [] })).toEqual({ added_count: 1, duplicates: 0 });
    expect(await client.trace.annotationQueues.addCalls(id, { call_ids: ['ghost', 'c1'], display_fields: [] })).toEqual({ added_count: 0, duplicates: 1 });
    expect((await client.trace.annotationQueues.queryItems(id)).items.map((i) => i.call_id)).toEqual(['c1']);
  });

  it('adds calls to a queue id that names no queue, as the service does (it reads no queue first)', async () => {
    const { client } = await devClient();
    await calls(client, 'c1');
    const ghost = '01900000-0000-7000-8000-000000000000';
    expect(await client.trace.annotationQueues.addCalls(ghost, { call_ids: ['c1'], display_fields: [] })).toEqual({ added_count: 1, duplicates: 0 });
    // The call is in that queue's items now: adding it again is a duplicate.
    expect(await client.trace.annotationQueues.addCalls(ghost, { call_ids: ['c1'], display_fields: [] })).toEqual({ added_count: 0, duplicates: 1 });
  });

  it('refuses a queue without scorer_refs with a 422 naming the field', async () => {
    const { client } = await devClient();
    // biome-ignore lint/suspicious/noExplicitAny: the point is a body the types would refuse
    const error = await client.trace.annotationQueues.create({ name: 'x' } as any).catch((e) => e);
    expect(error).toMatchObject({ status: 422, detail: [{ loc: ['body', 'scorer_refs'], type: 'missing' }] });
  });
});

describe('weft dev: the order of annotation queues and their items', () => {
  it('lists the newest queue first and items oldest first by default, sorting only by the fields the service does', async () => {
    const { client } = await devClient();
    const first = await newQueue(client, 'b');
    const second = await newQueue(client, 'a');
    const names = async (sort_by?: { field: string; direction: 'asc' | 'desc' }[]) =>
      (await client.trace.annotationQueues.streamQuery({ sort_by }).collect()).map((q) => q.name);
    expect(await names()).toEqual(['a', 'b']);
    expect(await names([{ field: 'name', direction: 'desc' }])).toEqual(['b', 'a']);
    // Not a field the service sorts queues by: the default order.
    expect(await names([{ field: 'description', direction: 'asc' }])).toEqual(['a', 'b']);

    await calls(client, 'c1', 'c2');
    await client.trace.annotationQueues.addCalls(first.id, { call_ids: ['c2'], display_fields: [] });
    await client.trace.annotationQueues.addCalls(first.id, { call_ids: ['c1'], display_fields: [] });
    const callIds = async (sort_by?: { field: string; direction: 'asc' | 'desc' }[]) =>
      (await client.trace.annotationQueues.queryItems(first.id, { sort_by })).items.map((i) => i.call_id);
    expect(await callIds()).toEqual(['c2', 'c1']);
    expect(await callIds([{ field: 'call_id', direction: 'asc' }])).toEqual(['c2', 'c1']);
    expect(second.id).not.toBe(first.id);
  });
});
