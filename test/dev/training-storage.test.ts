import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type DevService, startDevService } from 'weft/dev';
import { tempDataFile } from './data-file.js';
import { devService, get, type Json, post, request, startBody } from './support.js';

// The training state (models, checkpoints, jobs, events) goes through the same `--data` log as the trace
// data; these tests restart the service on one file and read it all back over HTTP.

const RESTARTED = /dev service restarted during training/;
const SFT_URL = 'wandb-artifact:///e/p/data:v0';

async function createModel(v1: string, name = 'agent'): Promise<Json> {
  const res = await post(v1, '/preview/models', { project: 'proj', name, base_model: 'OpenPipe/Qwen3-14B-Instruct' });
  expect(res.status).toBe(200);
  return res.body;
}

async function startSft(v1: string, modelId: string): Promise<string> {
  const res = await post(v1, '/preview/sft-training-jobs', { model_id: modelId, training_data_url: SFT_URL });
  expect(res.status).toBe(200);
  return res.body.id;
}

/** Every event of a job (following the pages). */
async function allEvents(v1: string, jobId: string): Promise<Json[]> {
  const events: Json[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await get(v1, `/preview/training-jobs/${jobId}/events?limit=2${after ? `&after=${after}` : ''}`);
    expect(page.status).toBe(200);
    events.push(...page.body.data);
    if (!page.body.has_more) return events;
    after = page.body.last_id;
  }
}

/** Polls a job's events until one satisfies `done`. */
async function eventsUntil(v1: string, jobId: string, done: (e: Json) => boolean): Promise<Json[]> {
  for (;;) {
    const events = await allEvents(v1, jobId);
    if (events.some(done)) return events;
    await new Promise((r) => setTimeout(r, 10));
  }
}

const ended = (e: Json) => e.type === 'training_ended' || e.type === 'training_failed';
const checkpointSteps = async (v1: string, modelId: string) =>
  (await get(v1, `/preview/models/${modelId}/checkpoints`)).body.data.map((c: Json) => c.step);

describe('weft dev: training state with --data', () => {
  it('keeps models, checkpoints, a finished job and its events across a restart', async () => {
    const file = tempDataFile();
    const first = await startDevService({ port: 0, dataFile: file, log: false, trainingStepMs: 5 });
    const model = await createModel(first.v1Url);
    const jobId = await startSft(first.v1Url, model.id);
    const events = await eventsUntil(first.v1Url, jobId, ended);
    expect(events.map((e) => e.type)).toEqual(['training_started', 'gradient_step', 'gradient_step', 'gradient_step', 'training_ended']);
    const deleted = await request(`${first.v1Url}/preview/models/${model.id}/checkpoints`, 'DELETE', { steps: [1] });
    expect(deleted.body).toEqual({ deleted_count: 1, not_found_steps: [] });
    const gone = await createModel(first.v1Url, 'gone');
    expect((await request(`${first.v1Url}/preview/models/${gone.id}`, 'DELETE')).status).toBe(200);
    const checkpoints = (await get(first.v1Url, `/preview/models/${model.id}/checkpoints`)).body.data;
    const job = (await get(first.v1Url, `/preview/training-jobs/${jobId}`)).body;
    await first.close();

    const second = await devService({ dataFile: file, trainingStepMs: 5 });
    const v1 = second.v1Url;
    expect((await get(v1, `/preview/models/${model.id}/checkpoints`)).body.data).toEqual(checkpoints);
    expect(await checkpointSteps(v1, model.id)).toEqual([0, 2, 3]);
    expect((await get(v1, `/preview/training-jobs/${jobId}`)).body).toEqual(job);
    expect(job).toEqual({ id: jobId, training_start: expect.any(String), training_end: expect.any(String), error_message: null });
    expect(await allEvents(v1, jobId)).toEqual(events);
    expect((await get(v1, `/preview/models/${gone.id}/checkpoints`)).status).toBe(404);
    // The model's name and the SFT job's data URL are still taken.
    expect((await post(v1, '/preview/models', { project: 'proj', name: 'agent', base_model: 'b' })).status).toBe(409);
    expect(await startSft(v1, model.id)).toBe(jobId);
  });

  it('fails a job that was running when the service stopped, keeping its events so far', async () => {
    const file = tempDataFile();
    // Slow enough steps that the job is still running right after its first gradient step is seen.
    const first = await startDevService({ port: 0, dataFile: file, log: false, trainingStepMs: 1500 });
    const model = await createModel(first.v1Url);
    const jobId = await startSft(first.v1Url, model.id);
    const before = await eventsUntil(first.v1Url, jobId, (e) => e.type === 'gradient_step');
    await first.close();

    const lines: string[] = [];
    const second = await devService({ dataFile: file, trainingStepMs: 5, log: (line) => lines.push(line) });
    expect(lines.join('\n')).toMatch(/marked 1 training job\(s\) failed/);
    const events = await allEvents(second.v1Url, jobId);
    expect(events.slice(0, -1)).toEqual(before);
    expect(events.at(-1)).toMatchObject({ type: 'training_failed', data: { error_message: expect.stringMatching(RESTARTED) } });
    expect((await get(second.v1Url, `/preview/training-jobs/${jobId}`)).body).toMatchObject({
      error_message: expect.stringMatching(RESTARTED),
      training_start: expect.any(String),
      training_end: expect.any(String),
    });
    // The checkpoint its gradient step wrote stays.
    expect(await checkpointSteps(second.v1Url, model.id)).toEqual([0, 1]);
    await second.close();

    // The failure was written to the log: a third start reads it back and adds nothing.
    const third = await devService({ dataFile: file });
    expect(await allEvents(third.v1Url, jobId)).toEqual(events);
  });

  it('fails a job cut short by a crash (the log ends after its first gradient step)', async () => {
    const file = tempDataFile();
    const first = await startDevService({ port: 0, dataFile: file, log: false, trainingStepMs: 5 });
    const model = await createModel(first.v1Url);
    const jobId = await startSft(first.v1Url, model.id);
    await eventsUntil(first.v1Url, jobId, ended);
    await first.close();

    // Keep the log up to the first gradient step and tear the next line, as a crash mid-write would.
    const lines = readFileSync(file, 'utf8').split('\n');
    const cut = lines.findIndex((line) => line.includes('"gradient_step"')) + 1;
    writeFileSync(file, `${lines.slice(0, cut).join('\n')}\n${lines[cut]!.slice(0, 20)}`);

    const second: DevService = await devService({ dataFile: file });
    const events = await allEvents(second.v1Url, jobId);
    expect(events.map((e) => e.type)).toEqual(['training_started', 'gradient_step', 'training_failed']);
    expect(events.at(-1).data.error_message).toMatch(RESTARTED);
    expect(await checkpointSteps(second.v1Url, model.id)).toEqual([0, 1]);
  });

  it('keeps the training state when the log is compacted after trace eviction', async () => {
    const file = tempDataFile();
    const first = await startDevService({ port: 0, dataFile: file, maxTraces: 1, log: false, trainingStepMs: 5 });
    const model = await createModel(first.v1Url);
    const jobId = await startSft(first.v1Url, model.id);
    const events = await eventsUntil(first.v1Url, jobId, ended);
    for (const t of ['t1', 't2', 't3']) await post(first.url, '/call/start', startBody({ id: t, trace_id: t }));
    await first.close();
    // Compacted to the one kept trace, the model and the job (its events inside).
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(3);

    const second = await devService({ dataFile: file, maxTraces: 1 });
    expect(await checkpointSteps(second.v1Url, model.id)).toEqual([0, 1, 2, 3]);
    expect(await allEvents(second.v1Url, jobId)).toEqual(events);
    expect((await get(second.v1Url, `/preview/training-jobs/${jobId}`)).body.training_end).toEqual(expect.any(String));
  });
});
