import { describe, expect, it } from 'vitest';
import { devService, post, startBody, streamQuery } from './support.js';

const P = 'team/proj';

/** Three calls, c1 to c3 in start order, with feedback on c1 and c2 (c1 has two of one type) and a note on c3. */
async function callsWithFeedback(): Promise<string> {
  const { url } = await devService();
  for (const [i, id] of ['c1', 'c2', 'c3'].entries()) {
    await post(url, '/call/start', startBody({ id, trace_id: id, started_at: `2026-01-01T00:00:0${i}.000Z` }));
  }
  const feedback = async (call: string, feedback_type: string, payload: Record<string, unknown>) =>
    expect((await post(url, '/feedback/create', { project_id: P, weave_ref: `weave:///${P}/call/${call}`, feedback_type, payload })).status).toBe(200);
  await feedback('c1', 'custom', { score: 2 });
  await feedback('c2', 'custom', { score: 10 });
  await feedback('c1', 'custom', { score: 100 });
  await feedback('c3', 'wandb.note.1', { note: 'hi' });
  return url;
}

const ids = (calls: { id: string }[]) => calls.map((c) => c.id);

describe('weft dev: call queries filter and sort on feedback.[<type>].payload fields, as the service does', () => {
  it('filters on a payload path of one feedback type, reading the oldest of several', async () => {
    const url = await callsWithFeedback();
    const score = { $convert: { input: { $getField: 'feedback.[custom].payload.score' }, to: 'double' } };
    const calls = await streamQuery(url, { project_id: P, query: { $expr: { $gt: [score, { $literal: 5 }] } } });
    expect(ids(calls)).toEqual(['c2']);
    const { body } = await post(url, '/calls/query_stats', { project_id: P, query: { $expr: { $gt: [score, { $literal: 1 }] } } });
    expect(body.count).toBe(2);
  });

  it('reads any type with [*], and a type name with dots in it', async () => {
    const url = await callsWithFeedback();
    const eq = (field: string) => ({ $expr: { $eq: [{ $getField: field }, { $literal: 'hi' }] } });
    expect(ids(await streamQuery(url, { project_id: P, query: eq('feedback.[*].payload.note') }))).toEqual(['c3']);
    expect(ids(await streamQuery(url, { project_id: P, query: eq('feedback.[wandb.note.1].payload.note') }))).toEqual(['c3']);
    expect(ids(await streamQuery(url, { project_id: P, query: eq('feedback.[custom].payload.note') }))).toEqual([]);
  });

  it('sorts on a payload path, numbers as numbers, calls without it last', async () => {
    const url = await callsWithFeedback();
    const sorted = (direction: string) => streamQuery(url, { project_id: P, sort_by: [{ field: 'feedback.[custom].payload.score', direction }] });
    expect(ids(await sorted('desc'))).toEqual(['c2', 'c1', 'c3']);
    expect(ids(await sorted('asc'))).toEqual(['c1', 'c2', 'c3']);
  });

  it("refuses a feedback field that names no column, with a 422 and the service's reason", async () => {
    const url = await callsWithFeedback();
    const reply = await post(url, '/calls/stream_query', { project_id: P, sort_by: [{ field: 'feedback.[custom].score', direction: 'asc' }] });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({ reason: 'Invalid feedback path: score' });
  });
});
