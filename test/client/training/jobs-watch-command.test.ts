import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'weft';
import { type DevService, startDevService } from 'weft/dev';
import { runNode } from '../../helpers/child.js';

// Runs the built `weft` command (`npm run build` first), as a user's shell would.
let dev: DevService;
let client: Client;

beforeAll(async () => {
  dev = await startDevService({ port: 0, log: false, trainingStepMs: 20 });
  client = new Client({ baseUrl: dev.url, inferenceBaseUrl: dev.v1Url, trainingBaseUrl: dev.v1Url, project: 'local/default' });
});

afterAll(async () => {
  await client.close();
  await dev.close();
});

describe('weft jobs watch, the built command', () => {
  it('follows a job of weft dev in plain lines and exits 0 when it succeeds', async () => {
    const model = await client.training.models.create({ project: 'default', name: 'cli', base_model: 'OpenPipe/Qwen3-14B-Instruct' });
    const job = await client.training.jobs.createSft({ model_id: model.id, training_data_url: 'wandb-artifact:///local/default/d:v0' });

    const result = await runNode(['dist/cli.js', 'jobs', 'watch', job.id, '--interval', '0.01'], {
      WEFT_TRAINING_BASE_URL: dev.v1Url,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`watching job ${job.id}`);
    expect(lines.some((line) => /^\[\d+s\] step 1\b/.test(line))).toBe(true);
    expect(lines.at(-1)).toMatch(/^\[\d+s\] succeeded after \d+ steps?$/);
    expect(result.stdout).not.toContain('\x1b[');
  });
});
