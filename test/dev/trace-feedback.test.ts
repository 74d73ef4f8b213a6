import { describe, expect, it } from 'vitest';
import type { Client } from 'weft';
import { devClient } from './client-support.js';
import { tempDataFile } from './data-file.js';

type Query = Parameters<Client['trace']['feedback']['purge']>[0]['query'];

const REF = 'weave:///team/proj/call/c1';
const byType = (type: string): Query => ({ $expr: { $eq: [{ $getField: 'feedback_type' }, { $literal: type }] } });
const note = (text: string) => ({ weave_ref: REF, feedback_type: 'wandb.note.1', payload: { note: text } });

describe('weft dev: feedback through the Client', () => {
  it('creates a batch of feedback, answering one result per item in order', async () => {
    const { client } = await devClient();
    const { res } = await client.trace.feedback.createBatch({ batch: [note('a'), note('b')] });
    expect(res.map((r) => r.payload)).toEqual([{ note: 'a' }, { note: 'b' }]);
    const { result } = await client.trace.feedback.query({ fields: ['id', 'payload.note'] });
    expect(result).toEqual([
      { id: res[0]!.id, 'payload.note': 'a' },
      { id: res[1]!.id, 'payload.note': 'b' },
    ]);
  });

  it('rejects a whole batch with a 422 naming the bad item, writing none of it', async () => {
    const { client } = await devClient();
    // biome-ignore lint/suspicious/noExplicitAny: the point is an item the types would refuse
    const bad = { weave_ref: REF, payload: {} } as any;
    await expect(client.trace.feedback.createBatch({ batch: [note('a'), bad] })).rejects.toMatchObject({
      status: 422,
      detail: [{ loc: ['body', 'batch', 1, 'feedback_type'], type: 'missing' }],
    });
    expect((await client.trace.feedback.query()).result).toEqual([]);
  });

  it('replaces one feedback item with a new one', async () => {
    const { client } = await devClient();
    const old = await client.trace.feedback.create(note('draft'));
    const replaced = await client.trace.feedback.replace({ ...note('final'), feedback_id: old.id });
    expect(replaced.id).not.toBe(old.id);
    const { result } = await client.trace.feedback.query({ fields: ['id', 'payload.note'] });
    expect(result).toEqual([{ id: replaced.id, 'payload.note': 'final' }]);
  });

  it('answers the user who wrote the feedback, the dev service’s one user, from create, batch create and replace', async () => {
    const { client } = await devClient();
    const created = await client.trace.feedback.create(note('a'));
    const { res } = await client.trace.feedback.createBatch({ batch: [note('b')] });
    const replaced = await client.trace.feedback.replace({ ...note('c'), feedback_id: created.id });
    expect([created, ...res, replaced].map((r) => r.wb_user_id)).toEqual(['weft-dev', 'weft-dev', 'weft-dev']);
    const { result } = await client.trace.feedback.query({ fields: ['wb_user_id'] });
    expect(result).toEqual([{ wb_user_id: 'weft-dev' }, { wb_user_id: 'weft-dev' }]);
  });

  it('answers 404 when replacing feedback that is not stored', async () => {
    const { client } = await devClient();
    await expect(client.trace.feedback.replace({ ...note('x'), feedback_id: 'nope' })).rejects.toMatchObject({ status: 404 });
  });

  it('purges the feedback a query matches and keeps the rest', async () => {
    const { client } = await devClient();
    await client.trace.feedback.create(note('keep'));
    await client.trace.feedback.create({ weave_ref: REF, feedback_type: 'wandb.reaction.1', payload: { emoji: '👍' } });
    expect(await client.trace.feedback.purge({ query: byType('wandb.reaction.1') })).toEqual({});
    const { result } = await client.trace.feedback.query({ fields: ['feedback_type'] });
    expect(result).toEqual([{ feedback_type: 'wandb.note.1' }]);
  });

  it('keeps replacements and purges across a restart with a data file', async () => {
    const dataFile = tempDataFile();
    const first = await devClient({ dataFile });
    const old = await first.client.trace.feedback.create(note('draft'));
    await first.client.trace.feedback.replace({ ...note('final'), feedback_id: old.id });
    await first.client.trace.feedback.create({ weave_ref: REF, feedback_type: 'wandb.reaction.1', payload: {} });
    await first.client.trace.feedback.purge({ query: byType('wandb.reaction.1') });
    await first.dev.close();
    const second = await devClient({ dataFile });
    expect((await second.client.trace.feedback.query({ fields: ['payload.note'] })).result).toEqual([{ 'payload.note': 'final' }]);
  });

  it('counts feedback per time bucket, optionally of one type', async () => {
    const { client } = await devClient();
    await client.trace.feedback.create(note('a'));
    await client.trace.feedback.create({ weave_ref: REF, feedback_type: 'wandb.reaction.1', payload: {} });
    const start = new Date(Date.now() - 30_000);
    const stats = await client.trace.feedback.stats({ start, end: new Date(start.getTime() + 60_000), granularity: 60, feedback_type: 'wandb.note.1' });
    // Buckets are whole minutes since the epoch, as the service's ClickHouse cuts them: the window's two.
    const first = Math.floor(start.getTime() / 60_000) * 60_000;
    const minutes = start.getTime() === first ? [first] : [first, first + 60_000];
    expect(stats).toMatchObject({
      start: start.toISOString(),
      end: new Date(start.getTime() + 60_000).toISOString(),
      granularity: 60,
      timezone: 'UTC',
    });
    const buckets = stats.buckets as { timestamp: string; count: number }[];
    expect(buckets.map((b) => b.timestamp)).toEqual(minutes.map((m) => new Date(m).toISOString()));
    expect(buckets.reduce((sum, b) => sum + b.count, 0)).toBe(1);
  });

  it('refuses feedback stats without a start with a 422 naming it', async () => {
    const { client } = await devClient();
    // biome-ignore lint/suspicious/noExplicitAny: the point is a body the types would refuse
    await expect(client.trace.feedback.stats({} as any)).rejects.toMatchObject({ status: 422, detail: [{ loc: ['body', 'start'], type: 'missing' }] });
  });

  it('answers the payload schema with a 501 naming the operation, its shape being documented nowhere', async () => {
    const { client } = await devClient();
    await expect(client.trace.feedback.payloadSchema()).rejects.toMatchObject({ status: 501, message: expect.stringContaining('Feedback Payload Schema') });
  });
});
