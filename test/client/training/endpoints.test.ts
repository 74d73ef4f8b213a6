import { afterEach, describe, expect, it } from 'vitest';
import { type TrainingClient, type TrajectoryGroup, WeftServerError, WeftValidationError } from 'weft';
import { type LoopbackServer, type RecordedRequest, sendJson, startLoopbackServer } from '../inference/loopback-server.js';
import { API_KEY, completion, trainingClient, closeClients } from '../inference/support.js';

let server: LoopbackServer | undefined;

afterEach(async () => {
  await closeClients();
  await server?.close();
  server = undefined;
});

/** Starts a server answering every request with `reply`, and returns a client for it. */
async function serve(reply: unknown, status = 200): Promise<TrainingClient> {
  server = await startLoopbackServer((_req, res) => sendJson(res, status, reply));
  return trainingClient(server.origin);
}

function only(): RecordedRequest {
  expect(server?.requests).toHaveLength(1);
  return server?.requests[0] as RecordedRequest;
}

function expectAuthorized(request: RecordedRequest): void {
  expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
  expect(request.headers['compat-project']).toBeUndefined();
}

const MODEL_ID = '6f1c6f0e-3c5e-4c1a-9d6e-0b8f2a1e7c55';
const JOB_ID = 'b2a6c1d4-8e0f-4f0a-a1b2-c3d4e5f60718';

const groups: TrajectoryGroup[] = [
  {
    trajectories: [
      {
        messages_and_choices: [
          { role: 'user', content: '2+2?' },
          {
            finish_reason: 'stop',
            index: 0,
            message: { role: 'assistant', content: '4' },
            logprobs: { content: [{ token: '4', logprob: -0.01, top_logprobs: [] }] },
          },
        ],
        reward: 1,
        metrics: { correct: true },
      },
    ],
  },
];

describe('training chat completions', () => {
  it('posts to /v1/chat/completions', async () => {
    const client = await serve(completion('trained'));
    const result = await client.chat.completions.create({
      model: 'wandb-artifact:///e/p/m:step3',
      messages: [{ role: 'user', content: 'Hi' }],
      top_k: 20,
    });
    const request = only();
    expect([request.method, request.url]).toEqual(['POST', '/v1/chat/completions']);
    expectAuthorized(request);
    expect(request.json).toEqual({ model: 'wandb-artifact:///e/p/m:step3', messages: [{ role: 'user', content: 'Hi' }], top_k: 20 });
    expect(result.choices[0]?.message.content).toBe('trained');
  });

  it('posts to /v1/chat/completions/ when asked for the trailing-slash path', async () => {
    const client = await serve(completion());
    await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] }, { trailingSlash: true });
    expect(only().url).toBe('/v1/chat/completions/');
  });
});

describe('training models', () => {
  it('creates a model with POST /v1/preview/models', async () => {
    const model = { id: MODEL_ID, entity: 'e', project: 'p', name: 'agent', base_model: 'OpenPipe/Qwen3-14B-Instruct', run_id: null };
    const client = await serve(model);
    const params = { entity: null, project: 'p', name: 'agent', base_model: 'OpenPipe/Qwen3-14B-Instruct', return_existing: true };
    const result = await client.models.create(params);
    const request = only();
    expect([request.method, request.url]).toEqual(['POST', '/v1/preview/models']);
    expectAuthorized(request);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.json).toEqual(params);
    expect(result).toEqual(model);
  });

  it('deletes a model with DELETE /v1/preview/models/{model_id}', async () => {
    const reply = { model_id: MODEL_ID, deleted_checkpoints: 3, deleted_run: true };
    const client = await serve(reply);
    expect(await client.models.delete(MODEL_ID)).toEqual(reply);
    const request = only();
    expect([request.method, request.url, request.body]).toEqual(['DELETE', `/v1/preview/models/${MODEL_ID}`, '']);
    expectAuthorized(request);
  });

  it('logs trajectories with POST /v1/preview/models/{model_id}/log', async () => {
    const client = await serve({ ok: true });
    const result = await client.models.log(MODEL_ID, { split: 'val', trajectory_groups: groups });
    const request = only();
    expect([request.method, request.url]).toEqual(['POST', `/v1/preview/models/${MODEL_ID}/log`]);
    expectAuthorized(request);
    expect(request.json).toEqual({ split: 'val', trajectory_groups: groups });
    expect(result).toEqual({ ok: true });
  });
});

describe('training checkpoints', () => {
  it('lists one page with GET /v1/preview/models/{model_id}/checkpoints and its query', async () => {
    const page = { object: 'list', data: [{ id: 'c9', step: 9, metrics: { loss: 0.1 } }], first_id: 'c9', last_id: 'c9', has_more: true };
    const client = await serve(page);
    const result = await client.models.checkpoints.list(MODEL_ID, { after: 'c10', limit: 1, order: 'desc' });
    const request = only();
    expect([request.method, request.path]).toEqual(['GET', `/v1/preview/models/${MODEL_ID}/checkpoints`]);
    expect(Object.fromEntries(request.query)).toEqual({ after: 'c10', limit: '1', order: 'desc' });
    expectAuthorized(request);
    expect(result).toEqual(page);
  });

  it('deletes checkpoints with DELETE and a JSON body of steps', async () => {
    const client = await serve({ deleted_count: 2, not_found_steps: [7] });
    const result = await client.models.checkpoints.delete(MODEL_ID, { steps: [1, 2, 7] });
    const request = only();
    expect([request.method, request.url]).toEqual(['DELETE', `/v1/preview/models/${MODEL_ID}/checkpoints`]);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.json).toEqual({ steps: [1, 2, 7] });
    expectAuthorized(request);
    expect(result).toEqual({ deleted_count: 2, not_found_steps: [7] });
  });
});

describe('training jobs', () => {
  it('creates an SFT job with POST /v1/preview/sft-training-jobs', async () => {
    const client = await serve({ id: JOB_ID });
    const params = {
      model_id: MODEL_ID,
      training_data_url: 'wandb-artifact:///e/p/dataset:v0',
      config: { batch_size: 'auto' as const, learning_rate: [5e-5, 4e-5] },
    };
    expect(await client.jobs.createSft(params)).toEqual({ id: JOB_ID });
    const request = only();
    expect([request.method, request.url]).toEqual(['POST', '/v1/preview/sft-training-jobs']);
    expect(request.json).toEqual(params);
    expectAuthorized(request);
  });

  it('creates an RL job with POST /v1/preview/training-jobs', async () => {
    const client = await serve({ id: JOB_ID });
    const params = { model_id: MODEL_ID, trajectory_groups: groups, experimental_config: { learning_rate: 5e-6, loss_fn: 'cispo' as const } };
    expect(await client.jobs.createRl(params)).toEqual({ id: JOB_ID });
    const request = only();
    expect([request.method, request.url]).toEqual(['POST', '/v1/preview/training-jobs']);
    expect(request.json).toEqual(params);
    expectAuthorized(request);
  });

  it('reads a job with GET /v1/preview/training-jobs/{training_job_id}', async () => {
    const job = { id: JOB_ID, status: 'running', training_start: '2025-01-01T00:00:00Z', training_end: null, error_message: null };
    const client = await serve(job);
    expect(await client.jobs.get(JOB_ID)).toEqual(job);
    const request = only();
    expect([request.method, request.url]).toEqual(['GET', `/v1/preview/training-jobs/${JOB_ID}`]);
    expectAuthorized(request);
  });

  it('lists events with GET /v1/preview/training-jobs/{training_job_id}/events and its query', async () => {
    const page = { object: 'list', data: [{ id: 'e2', type: 'gradient_step', data: { loss: 0.5 } }], has_more: false };
    const client = await serve(page);
    expect(await client.jobs.events.list(JOB_ID, { after: 'e1', limit: 50 })).toEqual(page);
    const request = only();
    expect([request.method, request.path]).toEqual(['GET', `/v1/preview/training-jobs/${JOB_ID}/events`]);
    expect(Object.fromEntries(request.query)).toEqual({ after: 'e1', limit: '50' });
    expectAuthorized(request);
  });

  it('sends a create once, even when the service answers 503, since creates have no idempotency key', async () => {
    const client = await serve({ detail: 'Failed to create model due to workflow error.' }, 503);
    await expect(client.jobs.createRl({ model_id: MODEL_ID, trajectory_groups: groups })).rejects.toBeInstanceOf(WeftServerError);
    await expect(client.models.create({ project: 'p', name: 'n', base_model: 'b' })).rejects.toBeInstanceOf(WeftServerError);
    expect(server?.requests.map((r) => r.url)).toEqual(['/v1/preview/training-jobs', '/v1/preview/models']);
  });

  it("retries a create after a 503 when the caller says it is idempotent, as every call's `idempotent` does", async () => {
    const seen = new Set<string>();
    server = await startLoopbackServer((req, res) => {
      const first = !seen.has(req.url);
      seen.add(req.url);
      if (first) sendJson(res, 503, { detail: 'Failed to create model due to workflow error.' });
      else sendJson(res, 200, { id: 'created' });
    });
    const client = trainingClient(server.origin);
    const safe = { idempotent: true };
    await client.models.create({ project: 'p', name: 'n', base_model: 'b', return_existing: true }, safe);
    await client.models.log(MODEL_ID, { split: 'train', trajectory_groups: groups }, safe);
    await client.jobs.createRl({ model_id: MODEL_ID, trajectory_groups: groups }, safe);
    await client.jobs.createSft({ model_id: MODEL_ID, training_data_url: 'x' }, safe);
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /v1/preview/models',
      'POST /v1/preview/models',
      `POST /v1/preview/models/${MODEL_ID}/log`,
      `POST /v1/preview/models/${MODEL_ID}/log`,
      'POST /v1/preview/training-jobs',
      'POST /v1/preview/training-jobs',
      'POST /v1/preview/sft-training-jobs',
      'POST /v1/preview/sft-training-jobs',
    ]);
  });

  it('keeps the validation detail of a 422', async () => {
    const client = await serve({ detail: [{ loc: ['body', 'model_id'], msg: 'Field required', type: 'missing' }] }, 422);
    const error = await client.jobs.createSft({ model_id: '', training_data_url: 'x' } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftValidationError);
    expect((error as Error).message).toContain('model_id: Field required');
  });
});

describe('training health', () => {
  it('gets /v1/health', async () => {
    const client = await serve({ status: 'ok' });
    expect(await client.health()).toEqual({ status: 'ok' });
    const request = only();
    expect([request.method, request.url]).toEqual(['GET', '/v1/health']);
  });

  it('reports a passing system check from GET /v1/system-check', async () => {
    const checks = { api: true, database: true, cpu_queue: { success: true, duration: 0.1, errors: [] }, gpu_queue: { success: true } };
    const client = await serve(checks);
    expect(await client.systemCheck()).toEqual({ healthy: true, checks });
    expect(only().url).toBe('/v1/system-check');
  });

  it('reports a failing system check (503) as unhealthy with its checks, asked once', async () => {
    const checks = { api: true, database: false, cpu_queue: { success: false, errors: ['timeout'] } };
    const client = await serve(checks, 503);
    expect(await client.systemCheck()).toEqual({ healthy: false, checks });
    expect(server?.requests).toHaveLength(1);
  });

  it('asks a failing system check once when the call options say `maxRetries: undefined` (not given)', async () => {
    const checks = { api: true, database: false };
    const client = await serve(checks, 503);
    expect(await client.systemCheck({ maxRetries: undefined, timeoutMs: undefined })).toEqual({ healthy: false, checks });
    expect(server?.requests).toHaveLength(1);
  });
});
