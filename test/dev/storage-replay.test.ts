import { describe, expect, it } from 'vitest';
import type { Client } from 'weft';
import { writeCall } from './call-writer.js';
import { devClient } from './client-support.js';
import { dataLines, tempDataFile } from './data-file.js';

/** Writes some of everything the data file keeps, with the deletes and replaces that leave dead lines in it. */
async function writeEverything(client: Client): Promise<{ table: string; queue: string }> {
  await writeCall(client, { id: 'r1', trace_id: 't1' });
  await writeCall(client, { id: 'r2', trace_id: 't2', usage: { 'gpt-x': { prompt_tokens: 3, completion_tokens: 4 } } });
  await writeCall(client, { id: 'gone', trace_id: 't2', parent_id: 'r2' });
  await client.trace.calls.delete({ call_ids: ['gone'] });
  await client.trace.calls.update({ call_id: 'r2', display_name: 'renamed' });
  const first = await client.trace.objs.create({ obj: { object_id: 'prompt', val: { text: 'a' } } });
  await client.trace.objs.create({ obj: { object_id: 'prompt', val: { text: 'b' } } });
  await client.trace.objs.delete({ object_id: 'prompt', digests: [first.digest] });
  const table = await client.trace.tables.create({ table: { rows: [{ n: 1 }, { n: 2 }] } });
  const note = await client.trace.feedback.create({ weave_ref: 'weave:///team/proj/call/r1', feedback_type: 'note', payload: { v: 1 } });
  await client.trace.feedback.replace({ feedback_id: note.id, weave_ref: 'weave:///team/proj/call/r1', feedback_type: 'note', payload: { v: 2 } });
  await client.trace.costs.create({ costs: { 'gpt-x': { prompt_token_cost: 1, completion_token_cost: 2, effective_date: '2025-01-01T00:00:00Z' } } });
  const queue = await client.trace.annotationQueues.create({ name: 'Review', scorer_refs: [] });
  await client.trace.annotationQueues.addCalls(queue.id, { call_ids: ['r1', 'r2'], display_fields: [] });
  await client.trace.v2.evaluationRuns.create({ evaluation: 'weave:///team/proj/object/eval:e1', model: 'weave:///team/proj/object/bot:m1' });
  return { table: table.digest, queue: queue.id };
}

/** What a client reads back of {@link writeEverything}'s data. */
async function stateOf(client: Client, written: { table: string; queue: string }) {
  return {
    calls: await client.trace.calls.streamQuery().collect(),
    objs: (await client.trace.objs.query()).objs,
    rows: (await client.trace.tables.query({ digest: written.table })).rows,
    feedback: (await client.trace.feedback.query()).result,
    costs: (await client.trace.costs.query()).results,
    queues: await client.trace.annotationQueues.streamQuery().collect(),
    items: await client.trace.annotationQueues.queryItems(written.queue),
    runs: await client.trace.v2.evaluationRuns.list().collect(),
  };
}

/** Leaves over a thousand dead lines in the data file: enough for the writer to compact it. */
async function pileUpDeadLines(client: Client): Promise<void> {
  const batch = Array.from({ length: 1100 }, () => ({ weave_ref: 'weave:///team/proj/call/r1', feedback_type: 'scratch', payload: {} }));
  const { res } = await client.trace.feedback.createBatch({ batch });
  // The service purges feedback by id only.
  await client.trace.feedback.purge({ query: { $expr: { $or: res.map(({ id }) => ({ $eq: [{ $getField: 'id' }, { $literal: id }] })) } } });
}

describe('weft dev: a --data file replays into the state that wrote it', () => {
  it('gives the same state replayed as written, before and after it is compacted while running', async () => {
    const file = tempDataFile();
    const first = await devClient({ dataFile: file });
    const written = await writeEverything(first.client);
    const state = await stateOf(first.client, written);
    expect(state.calls.map((c) => c.id)).toEqual(['r1', 'r2']);
    await first.dev.close();

    const replayed = await devClient({ dataFile: file });
    expect(await stateOf(replayed.client, written)).toEqual(state);
    await pileUpDeadLines(replayed.client);
    expect(dataLines(file).length).toBeLessThan(30);
    expect(await stateOf(replayed.client, written)).toEqual(state);
    await replayed.dev.close();

    const compacted = await devClient({ dataFile: file });
    expect(await stateOf(compacted.client, written)).toEqual(state);
  });

  it('gives the same state replayed as it was compacted to on start', async () => {
    const file = tempDataFile();
    const first = await devClient({ dataFile: file });
    const written = await writeEverything(first.client);
    await first.dev.close();

    // Room for one trace: the replay evicts t1 and rewrites the file from what is left.
    const lines: string[] = [];
    const bounded = await devClient({ dataFile: file, maxTraces: 1, log: (line) => lines.push(line) });
    expect(lines.join('\n')).toMatch(/evicted 1 oldest trace\(s\) on replay/);
    const state = await stateOf(bounded.client, written);
    expect(state.calls.map((c) => c.id)).toEqual(['r2']);
    await bounded.dev.close();

    const replayed = await devClient({ dataFile: file, maxTraces: 1 });
    expect(await stateOf(replayed.client, written)).toEqual(state);
  });
});
