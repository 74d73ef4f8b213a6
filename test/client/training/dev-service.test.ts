import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'weft';
import { type DevService, startDevService } from 'weft/dev';

let dev: DevService;
let client: Client;

beforeAll(async () => {
  dev = await startDevService({ port: 0, log: false, trainingStepMs: 5 });
  client = new Client({
    baseUrl: dev.url,
    inferenceBaseUrl: dev.v1Url,
    trainingBaseUrl: dev.v1Url,
    project: 'local/default',
  });
});

afterAll(async () => {
  await client.close();
  await dev.close();
});

describe('the clients against weft dev', () => {
  it('lists models and streams a chat completion to [DONE] with its usage', async () => {
    const { data } = await client.inference.models.list();
    const model = data[0]?.id as string;
    expect(model).toBeTruthy();
    const stream = await client.inference.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Say hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = await stream.collect();
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text.length).toBeGreaterThan(0);
    expect(chunks.at(-1)?.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('trains a model with an SFT job and watches it to the end', async () => {
    const model = await client.training.models.create({
      project: 'default',
      name: 'watch-test',
      base_model: 'OpenPipe/Qwen3-14B-Instruct',
      return_existing: true,
    });
    const job = await client.training.jobs.createSft({ model_id: model.id, training_data_url: 'wandb-artifact:///local/default/data:v0' });
    const outcome = await client.training.jobs.watch(job.id, { pollIntervalMs: 5 });
    expect(outcome.status).toBe('succeeded');
    expect(outcome.events.at(-1)?.type).toBe('training_ended');
    const steps: number[] = [];
    for await (const checkpoint of client.training.models.checkpoints.listAll(model.id, { limit: 2 })) steps.push(checkpoint.step);
    expect(steps.length).toBeGreaterThan(1);
  });

  it("answers the training client's chat by default as the training service, on its own base URL", async () => {
    // No base URLs given: the defaults below weft dev's, where the training service has a base of its own.
    const byDefault = new Client({ baseUrl: dev.url, project: 'local/default', maxRetries: 0 });
    try {
      expect(byDefault.baseUrls.training).toBe(dev.trainingUrl);
      // A trained model's name, which the inference service would answer with 404 model_not_found.
      const trained = 'wandb-artifact:///local/default/my-agent:step3';
      for (const trailingSlash of [false, true]) {
        const answer = await byDefault.training.chat.completions.create(
          { model: 'Qwen/Qwen3-30B-A3B-Instruct-2507', messages: [{ role: 'user', content: 'Say hi' }] },
          { trailingSlash },
        );
        expect(answer.choices[0]?.message.content).toBeTruthy();
        await expect(
          byDefault.training.chat.completions.create({ model: trained, messages: 'not a list' as never }, { trailingSlash }),
        ).rejects.toMatchObject({ status: 422 });
      }
      // The shared /v1 still serves the training service's routes, its chat at the trailing-slash path.
      expect((await client.training.health()) as unknown).toEqual({ status: 'ok' });
    } finally {
      await byDefault.close();
    }
  });
});
