import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Client } from 'weft';
import { devClient } from './client-support.js';

const EVAL = 'weave:///team/proj/object/eval:e1';
const MODEL = 'weave:///team/proj/object/bot:m1';
const SCORER = 'weave:///team/proj/object/exact:s1';

const newRun = (client: Client, model = MODEL, evaluation = EVAL) => client.trace.v2.evaluationRuns.create({ evaluation, model });

describe('weft dev: evaluation runs, predictions and scores through the Client', () => {
  it('starts a run that reads back as running, then finishes it with its summary', async () => {
    const { client } = await devClient();
    const { evaluation_run_id } = await newRun(client);
    expect(await client.trace.v2.evaluationRuns.read(evaluation_run_id)).toEqual({
      evaluation_run_id,
      evaluation: EVAL,
      model: MODEL,
      status: 'running',
      started_at: expect.any(String),
      finished_at: null,
      summary: null,
    });
    expect(await client.trace.v2.evaluationRuns.finish(evaluation_run_id, { summary: { accuracy: 0.5 } })).toEqual({ success: true });
    expect(await client.trace.v2.evaluationRuns.read(evaluation_run_id)).toMatchObject({
      status: 'success',
      finished_at: expect.any(String),
      summary: { accuracy: 0.5 },
    });
  });

  it('refuses to finish a run twice with a 409', async () => {
    const { client } = await devClient();
    const { evaluation_run_id } = await newRun(client);
    await client.trace.v2.evaluationRuns.finish(evaluation_run_id);
    await expect(client.trace.v2.evaluationRuns.finish(evaluation_run_id)).rejects.toMatchObject({ status: 409 });
  });

  it('lists runs filtered by model and by id', async () => {
    const { client } = await devClient();
    const a = await newRun(client, MODEL);
    const b = await newRun(client, 'weave:///team/proj/object/other:m2');
    const byModel = await client.trace.v2.evaluationRuns.list({ models: [MODEL] }).collect();
    expect(byModel.map((r) => r.evaluation_run_id)).toEqual([a.evaluation_run_id]);
    const byId = await client.trace.v2.evaluationRuns.list({ evaluation_run_ids: [b.evaluation_run_id, 'nope'] }).collect();
    expect(byId.map((r) => r.evaluation_run_id)).toEqual([b.evaluation_run_id]);
  });

  it('filters runs by two evaluations to the runs of those two', async () => {
    const { client } = await devClient();
    const [a, b] = [await newRun(client, MODEL, `${EVAL}-a`), await newRun(client, MODEL, `${EVAL}-b`)];
    await newRun(client, MODEL, `${EVAL}-c`);
    const runs = await client.trace.v2.evaluationRuns.list({ evaluations: [`${EVAL}-a`, `${EVAL}-b`] }).collect();
    expect(runs.map((r) => r.evaluation_run_id)).toEqual([a.evaluation_run_id, b.evaluation_run_id]);
  });

  it('reads the list filters under the names evaluation_refs, model_refs and evaluation_run_ids, repeated or comma-joined', async () => {
    const { dev, client } = await devClient();
    const [a, b, c] = [await newRun(client, MODEL, `${EVAL}-a`), await newRun(client, `${MODEL}-b`, `${EVAL}-b`), await newRun(client)];
    const listed = async (query: string) => {
      const res = await fetch(`${dev.url}/v2/team/proj/evaluation_runs?${query}`);
      expect(res.status).toBe(200);
      return (await res.text()).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l).evaluation_run_id);
    };
    const e = (suffix: string) => encodeURIComponent(`${EVAL}-${suffix}`);
    expect(await listed(`evaluation_refs=${e('a')}&evaluation_refs=${e('b')}`)).toEqual([a.evaluation_run_id, b.evaluation_run_id]);
    expect(await listed(`evaluation_refs=${e('a')},${e('b')}`)).toEqual([a.evaluation_run_id, b.evaluation_run_id]);
    expect(await listed(`model_refs=${encodeURIComponent(`${MODEL}-b`)}`)).toEqual([b.evaluation_run_id]);
    // The interface's field names are no query keys: ignored, as the service ignores a key it does not know.
    expect(await listed(`evaluations=${e('a')}&models=${e('a')}`)).toEqual([a.evaluation_run_id, b.evaluation_run_id, c.evaluation_run_id]);
    expect(await listed(`evaluation_run_ids=${a.evaluation_run_id}&evaluation_run_ids=${c.evaluation_run_id}`)).toEqual([a.evaluation_run_id, c.evaluation_run_id]);
    // The service's Stainless SDK joins a list with commas.
    expect(await listed(`evaluation_run_ids=${b.evaluation_run_id},${c.evaluation_run_id}`)).toEqual([b.evaluation_run_id, c.evaluation_run_id]);
  });

  it('records a prediction in a run and lists the run’s predictions only', async () => {
    const { client } = await devClient();
    const { evaluation_run_id } = await newRun(client);
    const inRun = await client.trace.v2.predictions.create({ model: MODEL, inputs: { q: '2+2' }, output: '4', evaluation_run_id });
    await client.trace.v2.predictions.create({ model: MODEL, inputs: { q: 'x' }, output: 'y' });
    expect(await client.trace.v2.predictions.read(inRun.prediction_id)).toEqual({
      prediction_id: inRun.prediction_id,
      model: MODEL,
      inputs: { q: '2+2' },
      output: '4',
      evaluation_run_id,
    });
    const listed = await client.trace.v2.predictions.list({ evaluation_run_id }).collect();
    expect(listed.map((p) => p.prediction_id)).toEqual([inRun.prediction_id]);
    expect(await client.trace.v2.predictions.finish(inRun.prediction_id)).toEqual({ success: true });
  });

  it('answers 404 for a prediction in a run that does not exist', async () => {
    const { client } = await devClient();
    const error = await client.trace.v2.predictions.create({ model: MODEL, inputs: {}, output: null, evaluation_run_id: 'ghost' }).catch((e) => e);
    expect(error).toMatchObject({ status: 404, message: expect.stringContaining('ghost') });
  });

  it('records a score for a prediction and reads it back', async () => {
    const { client } = await devClient();
    const { prediction_id } = await client.trace.v2.predictions.create({ model: MODEL, inputs: {}, output: 'a' });
    const { score_id } = await client.trace.v2.scores.create({ prediction_id, scorer: SCORER, value: 1 });
    expect(await client.trace.v2.scores.read(score_id)).toEqual({ score_id, scorer: SCORER, value: 1, evaluation_run_id: null });
    expect((await client.trace.v2.scores.list().collect()).map((s) => s.score_id)).toEqual([score_id]);
  });

  it('answers 404 for a score of a prediction that does not exist', async () => {
    const { client } = await devClient();
    const error = await client.trace.v2.scores.create({ prediction_id: 'ghost', scorer: SCORER, value: 1 }).catch((e) => e);
    expect(error).toMatchObject({ status: 404, message: expect.stringContaining('Prediction ghost') });
  });

  it('deletes the named records and counts only those that existed', async () => {
    const { client } = await devClient();
    const a = await newRun(client);
    const b = await newRun(client);
    expect(await client.trace.v2.evaluationRuns.delete({ evaluation_run_ids: [a.evaluation_run_id, 'nope'] })).toEqual({ num_deleted: 1 });
    await expect(client.trace.v2.evaluationRuns.read(a.evaluation_run_id)).rejects.toMatchObject({ status: 404 });
    expect((await client.trace.v2.evaluationRuns.list().collect()).map((r) => r.evaluation_run_id)).toEqual([b.evaluation_run_id]);
  });

  it('deletes runs, predictions and scores named in a JSON body, as an object field or a bare list', async () => {
    const { dev, client } = await devClient();
    const run = await newRun(client);
    const other = await newRun(client);
    const prediction = await client.trace.v2.predictions.create({ model: MODEL, inputs: {}, output: 1 });
    const score = await client.trace.v2.scores.create({ prediction_id: prediction.prediction_id, scorer: SCORER, value: 1 });
    const remove = async (collection: string, body: unknown) => {
      const res = await fetch(`${dev.url}/v2/team/proj/${collection}`, { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    };
    expect(await remove('evaluation_runs', { evaluation_run_ids: [run.evaluation_run_id] })).toEqual({ status: 200, body: { num_deleted: 1 } });
    expect(await remove('evaluation_runs', [other.evaluation_run_id])).toEqual({ status: 200, body: { num_deleted: 1 } });
    expect(await remove('scores', { score_ids: [score.score_id] })).toEqual({ status: 200, body: { num_deleted: 1 } });
    expect(await remove('predictions', [prediction.prediction_id])).toEqual({ status: 200, body: { num_deleted: 1 } });
    expect(await client.trace.v2.evaluationRuns.list().collect()).toEqual([]);
    expect(await client.trace.v2.predictions.list().collect()).toEqual([]);
    expect(await client.trace.v2.scores.list().collect()).toEqual([]);
  });

  it('refuses a delete whose body names ids under another field with a 422', async () => {
    const { dev, client } = await devClient();
    const run = await newRun(client);
    const res = await fetch(`${dev.url}/v2/team/proj/evaluation_runs`, { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ids: [run.evaluation_run_id] }) });
    expect(res.status).toBe(422);
    expect(await client.trace.v2.evaluationRuns.list().collect()).toHaveLength(1);
  });

  it('refuses a delete without ids with a 422 rather than deleting everything', async () => {
    const { dev, client } = await devClient();
    await newRun(client);
    // The Client refuses to send this itself, so it goes over a plain socket.
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${dev.url}/v2/team/proj/evaluation_runs`, { method: 'DELETE' }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject).end();
    });
    expect(status).toBe(422);
    expect(await client.trace.v2.evaluationRuns.list().collect()).toHaveLength(1);
  });

  it('refuses a score without a value with a 422 naming the field', async () => {
    const { client } = await devClient();
    // biome-ignore lint/suspicious/noExplicitAny: the point is a body the types would refuse
    const error = await client.trace.v2.scores.create({ prediction_id: 'p', scorer: SCORER } as any).catch((e) => e);
    expect(error).toMatchObject({ status: 422, detail: [{ loc: ['body', 'value'], type: 'missing' }] });
  });
});
