import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type Client, WeftNotFoundError, WeftValidationError } from 'weft';
import { devClient } from './client-support.js';

// What the training service's FastAPI checks before it looks anything up (reference §1.1, §1.2, §1.6), seen
// through weft's client: a 422 becomes a WeftValidationError whose `issues` name the field.

async function rejection(promise: Promise<unknown>): Promise<WeftValidationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WeftValidationError);
  return error as WeftValidationError;
}

async function model(client: Client) {
  return client.training.models.create({ project: 'proj', name: 'agent', base_model: 'OpenPipe/Qwen3-14B-Instruct' });
}

const user = { role: 'user' as const, content: 'What is 2 + 2?' };
const sampled = { finish_reason: 'stop' as const, index: 0, message: { role: 'assistant' as const, content: '4' } };
const withLogprobs = { ...sampled, logprobs: { content: [{ token: '4', logprob: -0.01, top_logprobs: [] }] } };
const rlJob = (modelId: string, messages_and_choices: unknown[], experimental_config?: Record<string, unknown>) => ({
  model_id: modelId,
  trajectory_groups: [{ trajectories: [{ messages_and_choices: messages_and_choices as never, reward: 1 }] }],
  ...(experimental_config ? { experimental_config } : {}),
});

describe('weft dev: training ids are UUIDs', () => {
  it('answers a job id that is not a UUID with a 422 at the path parameter', async () => {
    const { client } = await devClient();
    const error = await rejection(client.training.jobs.get('jid'));
    expect(error.status).toBe(422);
    expect(error.issues).toEqual([{ loc: ['path', 'training_job_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }]);
    const events = await rejection(client.training.jobs.events.list('jid'));
    expect(events.issues[0]?.loc).toEqual(['path', 'training_job_id']);
  });

  it('answers a model id that is not a UUID with a 422 on every model route', async () => {
    const { client } = await devClient();
    const calls = [
      client.training.models.delete('not-a-uuid'),
      client.training.models.checkpoints.list('not-a-uuid'),
      client.training.models.checkpoints.delete('not-a-uuid', { steps: [1] }),
      client.training.models.log('not-a-uuid', { split: 'val', trajectory_groups: [] }),
    ];
    for (const call of calls) expect((await rejection(call)).issues[0]?.loc).toEqual(['path', 'model_id']);
  });

  it('answers a job for a model_id that is not a UUID with a 422 at the body field', async () => {
    const { client } = await devClient();
    const error = await rejection(client.training.jobs.createSft({ model_id: 'missing', training_data_url: 'wandb-artifact:///e/p/d:v0' }));
    expect(error.issues).toEqual([{ loc: ['body', 'model_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }]);
  });

  it('answers 404 for a well-formed id it does not know, and reads an id in another UUID form', async () => {
    const { client } = await devClient();
    await expect(client.training.jobs.get(randomUUID())).rejects.toBeInstanceOf(WeftNotFoundError);
    const { id } = await model(client);
    const page = await client.training.models.checkpoints.list(id.replaceAll('-', '').toUpperCase());
    expect(page.data.map((c) => c.step)).toEqual([0]);
  });
});

describe('weft dev: RL trajectories need logprobs', () => {
  it('refuses a choice without logprobs, naming it', async () => {
    const { client } = await devClient();
    const { id } = await model(client);
    const error = await rejection(client.training.jobs.createRl(rlJob(id, [user, sampled])));
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]).toMatchObject({
      loc: ['body', 'trajectory_groups', 0, 'trajectories', 0, 'messages_and_choices', 1, 'logprobs'],
      msg: expect.stringContaining('allow_training_without_logprobs'),
    });
  });

  it('refuses a trajectory with no choice at all, which has nothing to train on', async () => {
    const { client } = await devClient();
    const { id } = await model(client);
    const error = await rejection(client.training.jobs.createRl(rlJob(id, [user, { role: 'assistant', content: '4' }])));
    expect(error.issues[0]?.loc).toEqual(['body', 'trajectory_groups', 0, 'trajectories', 0, 'messages_and_choices']);
  });

  it('refuses a trajectory without its reward', async () => {
    const { client } = await devClient();
    const { id } = await model(client);
    const body = { model_id: id, trajectory_groups: [{ trajectories: [{ messages_and_choices: [user, withLogprobs] }] }] };
    const error = await rejection(client.training.jobs.createRl(body as never));
    expect(error.issues).toEqual([{ loc: ['body', 'trajectory_groups', 0, 'trajectories', 0, 'reward'], msg: 'Field required', type: 'missing' }]);
  });

  it('accepts choices with logprobs, and turns without them when allow_training_without_logprobs is set', async () => {
    const { client } = await devClient({ trainingStepMs: 5 });
    const { id } = await model(client);
    expect((await client.training.jobs.createRl(rlJob(id, [user, withLogprobs]))).id).toEqual(expect.any(String));
    const allowed = { allow_training_without_logprobs: true };
    expect((await client.training.jobs.createRl(rlJob(id, [user, sampled], allowed))).id).toEqual(expect.any(String));
    expect((await client.training.jobs.createRl(rlJob(id, [user, { role: 'assistant', content: '4' }], allowed))).id).toEqual(expect.any(String));
  });
});

describe('weft dev: a training job answers only fields the service is known to send', () => {
  it('answers create with the id alone and GET without made-up fields; the outcome comes from the events', async () => {
    const { client } = await devClient({ trainingStepMs: 5 });
    const { id } = await model(client);
    const job = await client.training.jobs.createRl(rlJob(id, [user, withLogprobs]));
    expect(job).toEqual({ id: job.id });
    const outcome = await client.training.jobs.watch(job.id, { pollIntervalMs: 5 });
    expect(outcome.status).toBe('succeeded');
    expect(await client.training.jobs.get(job.id)).toEqual({
      id: job.id,
      training_start: expect.any(String),
      training_end: expect.any(String),
      error_message: null,
    });
  });
});
