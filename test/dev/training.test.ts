import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { devService, get, type Json, post, request } from './support.js';

async function setup() {
  const dev = await devService({ trainingStepMs: 10 });
  const v1 = dev.v1Url;
  const model = await post(v1, '/preview/models', { project: 'proj', name: 'agent', base_model: 'OpenPipe/Qwen3-14B-Instruct' });
  return { dev, v1, model: model.body };
}

/** A choice the model sampled, with the logprobs an RL job needs. */
const choice = {
  finish_reason: 'stop',
  index: 0,
  message: { role: 'assistant', content: 'hello' },
  logprobs: { content: [{ token: 'hello', logprob: -0.1, top_logprobs: [] }] },
};

const groups = (rewards: number[][]) =>
  rewards.map((rs) => ({
    trajectories: rs.map((reward) => ({ messages_and_choices: [{ role: 'user', content: 'hi' }, choice], reward })),
  }));

/** Reads every event of a job, following the pages, until it has ended. */
async function eventsUntilEnd(v1: string, jobId: string): Promise<Json[]> {
  for (;;) {
    const events: Json[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await get(v1, `/preview/training-jobs/${jobId}/events?limit=2${after ? `&after=${after}` : ''}`);
      events.push(...page.body.data);
      if (!page.body.has_more) break;
      after = page.body.last_id;
    }
    if (events.some((e) => e.type === 'training_ended' || e.type === 'training_failed')) return events;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('weft dev: the training service', () => {
  it('creates a model with the untrained step-0 checkpoint', async () => {
    const { v1, model } = await setup();
    expect(model).toMatchObject({ id: expect.any(String), entity: 'local', project: 'proj', name: 'agent', base_model: 'OpenPipe/Qwen3-14B-Instruct' });
    const checkpoints = await get(v1, `/preview/models/${model.id}/checkpoints`);
    expect(checkpoints.body).toMatchObject({ object: 'list', has_more: false, data: [{ step: 0, metrics: {} }] });
  });

  it('refuses a duplicate model name with 409 unless return_existing is set', async () => {
    const { v1, model } = await setup();
    const body = { project: 'proj', name: 'agent', base_model: 'b' };
    expect((await post(v1, '/preview/models', body)).status).toBe(409);
    expect((await post(v1, '/preview/models', { ...body, return_existing: true })).body.id).toBe(model.id);
  });

  it('runs an RL job through started, gradient steps and ended, writing checkpoints', async () => {
    const { v1, model } = await setup();
    const job = await post(v1, '/preview/training-jobs', { model_id: model.id, trajectory_groups: groups([[1, 0], [0.5, 0.5]]) });
    const events = await eventsUntilEnd(v1, job.body.id);
    expect(events.map((e) => e.type)).toEqual(['training_started', 'gradient_step', 'gradient_step', 'training_ended']);
    expect(events[0].data).toEqual({ num_sequences: 2 });
    expect(events[1].data).toMatchObject({ reward: 0.5, reward_std_dev: 0.5, gradient_step: 1, loss: expect.any(Number) });
    expect(new Set(events.map((e) => e.id)).size).toBe(4);

    const latest = await get(v1, `/preview/models/${model.id}/checkpoints?limit=1&order=desc`);
    expect(latest.body.data[0]).toMatchObject({ step: 2, metrics: events[2].data });
    expect(latest.body.has_more).toBe(true);
    const state = await get(v1, `/preview/training-jobs/${job.body.id}`);
    expect(state.body).toEqual({ id: job.body.id, training_start: expect.any(String), training_end: expect.any(String), error_message: null });
  });

  it('fails a job on request with a training_failed event carrying the message', async () => {
    const { v1, model } = await setup();
    const job = await post(v1, '/preview/training-jobs', {
      model_id: model.id,
      trajectory_groups: groups([[1], [1], [1]]),
      experimental_config: { simulate_failure: 'GPU on fire' },
    });
    const events = await eventsUntilEnd(v1, job.body.id);
    expect(events.map((e) => e.type)).toEqual(['training_started', 'gradient_step', 'training_failed']);
    expect(events.at(-1).data).toEqual({ error_message: 'GPU on fire' });
    expect((await get(v1, `/preview/training-jobs/${job.body.id}`)).body).toMatchObject({ error_message: 'GPU on fire', training_end: expect.any(String) });
  });

  it('runs an SFT job and returns the same job for the same data URL', async () => {
    const { v1, model } = await setup();
    const body = { model_id: model.id, training_data_url: 'wandb-artifact:///e/p/data:v0', config: { batch_size: 'auto' } };
    const job = await post(v1, '/preview/sft-training-jobs', body);
    expect((await post(v1, '/preview/sft-training-jobs', body)).body.id).toBe(job.body.id);
    const events = await eventsUntilEnd(v1, job.body.id);
    expect(events.filter((e) => e.type === 'gradient_step')).toHaveLength(3);
    expect(events.at(-1).type).toBe('training_ended');
  });

  it('deletes checkpoints by step with a JSON body on DELETE and reports missing steps', async () => {
    const { v1, model } = await setup();
    const res = await request(`${v1}/preview/models/${model.id}/checkpoints`, 'DELETE', { steps: [0, 7] });
    expect(res.body).toEqual({ deleted_count: 1, not_found_steps: [7] });
    expect((await get(v1, `/preview/models/${model.id}/checkpoints`)).body.data).toEqual([]);
  });

  it('deletes a model with its checkpoints', async () => {
    const { v1, model } = await setup();
    const res = await request(`${v1}/preview/models/${model.id}`, 'DELETE');
    expect(res.body).toEqual({ model_id: model.id, deleted_checkpoints: 1, deleted_run: true });
    expect((await get(v1, `/preview/models/${model.id}/checkpoints`)).status).toBe(404);
  });

  it('answers 404 for an unknown job and 422 for a limit out of range', async () => {
    const { v1 } = await setup();
    expect((await get(v1, `/preview/training-jobs/${randomUUID()}`)).status).toBe(404);
    const { model } = await setup();
    const res = await get(v1, `/preview/models/${model.id}/checkpoints?limit=500`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', 'limit']);
  });

  it('pages checkpoints after the id of the last one read, in the order asked', async () => {
    const { v1, model } = await setup();
    const job = await post(v1, '/preview/training-jobs', { model_id: model.id, trajectory_groups: groups([[1, 0], [0.5, 0.5]]) });
    await eventsUntilEnd(v1, job.body.id);
    const first = await get(v1, `/preview/models/${model.id}/checkpoints?limit=2&order=desc`);
    expect(first.body).toMatchObject({ object: 'list', has_more: true, first_id: first.body.data[0].id, last_id: first.body.data[1].id });
    expect(first.body.data.map((c: Json) => c.step)).toEqual([2, 1]);
    const rest = await get(v1, `/preview/models/${model.id}/checkpoints?limit=2&order=desc&after=${first.body.last_id}`);
    expect(rest.body).toMatchObject({ has_more: false });
    expect(rest.body.data.map((c: Json) => c.step)).toEqual([0]);
  });

  it('answers 422 at ?after= when it names no checkpoint or event', async () => {
    const { v1, model } = await setup();
    const job = await post(v1, '/preview/training-jobs', { model_id: model.id, trajectory_groups: groups([[1]]) });
    for (const path of [`/preview/models/${model.id}/checkpoints?after=nope`, `/preview/training-jobs/${job.body.id}/events?after=nope`]) {
      const res = await get(v1, path);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([{ loc: ['query', 'after'], msg: expect.stringMatching(/"nope" is not the id of a known (checkpoint|event)/), type: 'value_error' }]);
    }
  });

  it('creates a job only for a known model', async () => {
    const { v1 } = await setup();
    const res = await post(v1, '/preview/training-jobs', { model_id: randomUUID(), trajectory_groups: groups([[1]]) });
    expect(res.status).toBe(404);
  });

  it('answers health and system-check without a key', async () => {
    const dev = await devService({ apiKey: 'secret' });
    expect((await get(dev.v1Url, '/health')).status).toBe(200);
    const check = await get(dev.v1Url, '/system-check');
    expect(check.body).toMatchObject({ api: true, database: true, cpu_queue: { success: true }, gpu_queue: { success: true } });
  });
});
