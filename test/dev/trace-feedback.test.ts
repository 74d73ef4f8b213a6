import { describe, expect, it } from 'vitest';
import type { Client } from 'weft';
import { devClient } from './client-support.js';
import { tempDataFile } from './data-file.js';

type Query = Parameters<Client['trace']['feedback']['purge']>[0]['query'];

const REF = 'weave:///team/proj/call/c1';
const byId = (id: string): Query => ({ $expr: { $eq: [{ $getField: 'id' }, { $literal: id }] } });
const reaction = (emoji: string) => ({ weave_ref: REF, feedback_type: 'wandb.reaction.1', payload: { emoji } });
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

  it('purges the feedback a query names by id and keeps the rest', async () => {
    const { client } = await devClient();
    await client.trace.feedback.create(note('keep'));
    const thumbs = await client.trace.feedback.create(reaction('👍'));
    expect(await client.trace.feedback.purge({ query: byId(thumbs.id) })).toEqual({});
    const { result } = await client.trace.feedback.query({ fields: ['feedback_type'] });
    expect(result).toEqual([{ feedback_type: 'wandb.note.1' }]);
  });

  it('keeps replacements and purges across a restart with a data file', async () => {
    const dataFile = tempDataFile();
    const first = await devClient({ dataFile });
    const old = await first.client.trace.feedback.create(note('draft'));
    await first.client.trace.feedback.replace({ ...note('final'), feedback_id: old.id });
    const thumbs = await first.client.trace.feedback.create(reaction('👍'));
    await first.client.trace.feedback.purge({ query: byId(thumbs.id) });
    await first.dev.close();
    const second = await devClient({ dataFile });
    expect((await second.client.trace.feedback.query({ fields: ['payload.note'] })).result).toEqual([{ 'payload.note': 'final' }]);
  });

  it('counts feedback per time bucket, optionally of one type', async () => {
    const { client } = await devClient();
    await client.trace.feedback.create(note('a'));
    await client.trace.feedback.create(reaction('👍'));
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

  it('refuses with a 400 a purge that does not name feedback by id, as the service does for safety', async () => {
    const { client } = await devClient();
    const kept = await client.trace.feedback.create(note('keep'));
    const byType: Query = { $expr: { $eq: [{ $getField: 'feedback_type' }, { $literal: 'wandb.note.1' }] } };
    const idsAndMore: Query = { $expr: { $or: [byId(kept.id).$expr, byType.$expr] } };
    for (const query of [byType, idsAndMore]) {
      await expect(client.trace.feedback.purge({ query })).rejects.toMatchObject({
        status: 400,
        message: expect.stringContaining('Can only purge feedback by specifying one or more feedback ids'),
      });
    }
    expect((await client.trace.feedback.query({ fields: ['id'] })).result).toEqual([{ id: kept.id }]);
    await client.trace.feedback.purge({ query: { $expr: { $or: [byId(kept.id).$expr, byId('no-such-id').$expr] } } });
    expect((await client.trace.feedback.query()).result).toEqual([]);
  });

  it('checks the payload of a reaction and a note as the service does, with a 400', async () => {
    const { client } = await devClient();
    const refused = [
      reaction('thumbs up'),
      reaction('👍👎'),
      { weave_ref: REF, feedback_type: 'wandb.reaction.1', payload: {} },
      note(''),
      note('x'.repeat(1025)),
      { weave_ref: REF, feedback_type: 'wandb.note.1', payload: { text: 'hi' } },
    ];
    for (const req of refused) await expect(client.trace.feedback.create(req), JSON.stringify(req.payload).slice(0, 40)).rejects.toMatchObject({ status: 400 });
    // One emoji, even a sequence of several code points or among words, is one reaction.
    for (const emoji of ['👍🏽', '👨‍👩‍👧', '🇫🇷', 'nice 🎉']) await client.trace.feedback.create(reaction(emoji));
    await client.trace.feedback.create(note('x'.repeat(1024)));
    // A batch with one bad item writes none of it.
    await expect(client.trace.feedback.createBatch({ batch: [note('fine'), note('')] })).rejects.toMatchObject({ status: 400 });
    expect((await client.trace.feedback.query()).result).toHaveLength(5);
  });

  it('allows the annotation, runnable, call and trigger refs only on the types that take them', async () => {
    const { client } = await devClient();
    const spec = await client.trace.objs.create({ obj: { object_id: 'rating', val: { field_schema: { type: 'number' } } } });
    const specRef = `weave:///team/proj/object/rating:${spec.digest}`;
    const refused = [
      { ...note('a'), annotation_ref: specRef },
      { ...note('a'), runnable_ref: 'weave:///team/proj/op/score:abc' },
      { ...note('a'), call_ref: 'weave:///team/proj/call/c1' },
      { ...note('a'), trigger_ref: specRef },
      // An annotation needs its spec's ref, to an object named as the type, that exists, and a value.
      { weave_ref: REF, feedback_type: 'wandb.annotation.rating', payload: { value: 3 } },
      { weave_ref: REF, feedback_type: 'wandb.annotation.other', payload: { value: 3 }, annotation_ref: specRef },
      { weave_ref: REF, feedback_type: 'wandb.annotation.rating', payload: { value: 3 }, annotation_ref: 'weave:///team/proj/object/rating:nope' },
      { weave_ref: REF, feedback_type: 'wandb.annotation.rating', payload: { score: 3 }, annotation_ref: specRef },
      // A runnable needs its ref, named as the type, a call ref for an op, and an output.
      { weave_ref: REF, feedback_type: 'wandb.runnable.score', payload: { output: 1 } },
      { weave_ref: REF, feedback_type: 'wandb.runnable.score', payload: { output: 1 }, runnable_ref: 'weave:///team/proj/op/score:abc' },
    ];
    for (const req of refused) await expect(client.trace.feedback.create(req), JSON.stringify(req)).rejects.toMatchObject({ status: 400 });
    await client.trace.feedback.create({ weave_ref: REF, feedback_type: 'wandb.annotation.rating', payload: { value: 3 }, annotation_ref: specRef });
    await client.trace.feedback.create({
      weave_ref: REF,
      feedback_type: 'wandb.runnable.score',
      payload: { output: 1 },
      runnable_ref: 'weave:///team/proj/op/score:abc',
      call_ref: 'weave:///team/proj/call/c9',
    });
    expect((await client.trace.feedback.query()).result).toHaveLength(2);
  });
});
