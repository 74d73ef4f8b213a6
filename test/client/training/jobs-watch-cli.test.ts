import { afterEach, describe, expect, it } from 'vitest';
import { runJobsWatch } from '../../../src/cli/jobs-watch.js';
import { sendJson, startLoopbackServer } from '../inference/loopback-server.js';
import { type FakeJob, event, startFakeJob } from './events-server.js';
import { deadOrigin } from '../../helpers/dead-origin.js';
import { settlesWithin } from '../../helpers/deadline.js';

let job: FakeJob | undefined;

afterEach(async () => {
  await job?.server.close();
  job = undefined;
});

function output(isTTY = false, columns?: number) {
  const chunks: string[] = [];
  return { isTTY, columns, chunks, write: (text: string) => chunks.push(text), text: () => chunks.join('') };
}

/** Plain lines without their `[elapsed]` prefix, which depends on the clock. */
function lines(text: string): string[] {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => line.replace(/^\[\d+(s|m\d\ds|h\d\dm)\] /, ''));
}

const succeeding = [
  event('e0', 'training_started', { num_sequences: 2 }),
  event('e1', 'gradient_step', { loss: 0.51234, reward: 0.25, grad_norm: 1.5, gradient_step: 1 }),
  event('e2', 'gradient_step', { loss: 0.25, reward: 0.5, learning_rate: 5e-6 }),
  event('e3', 'training_ended'),
];

async function run(
  argv: string[],
  options: { tty?: boolean; columns?: number; env?: Record<string, string>; signal?: AbortSignal } = {},
) {
  const stdout = output(options.tty, options.columns);
  const stderr = output();
  const code = await runJobsWatch(argv, {
    stdout,
    stderr,
    env: { WEFT_API_KEY: 'sk-cli-key-12345678', ...options.env },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe('weft jobs watch', () => {
  it('prints one plain line per event when not in a terminal, and exits 0 when the job succeeds', async () => {
    job = await startFakeJob((n) => succeeding.slice(0, 2 + n));
    const result = await run(['job-1', '--base-url', `${job.server.origin}/v1`, '--interval', '0.002']);
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toEqual([
      'watching job job-1',
      'started (2 steps expected)',
      'step 1/2 loss=0.5123 reward=0.25 grad_norm=1.5',
      'step 2/2 loss=0.25 reward=0.5 learning_rate=5.00e-6',
      'succeeded after 2 steps',
    ]);
    expect(result.stderr).toBe('');
  });

  it('sends the API key from WEFT_API_KEY', async () => {
    job = await startFakeJob(() => succeeding);
    await run(['job-1', '--base-url', `${job.server.origin}/v1`]);
    expect(job.eventRequests()[0]?.headers.authorization).toBe('Bearer sk-cli-key-12345678');
    expect(job.eventRequests()[0]?.path).toBe('/v1/preview/training-jobs/job-1/events');
  });

  it('reads the address from WEFT_TRAINING_BASE_URL', async () => {
    job = await startFakeJob(() => succeeding);
    const result = await run(['job-1'], { env: { WEFT_TRAINING_BASE_URL: `${job.server.origin}/v1` } });
    expect(result.code).toBe(0);
  });

  it('exits 1 and prints the reason when the job fails', async () => {
    job = await startFakeJob(() => [event('e0', 'training_started'), event('e1', 'training_failed', { error_message: 'CUDA OOM' })]);
    const result = await run(['job-1', '--base-url', `${job.server.origin}/v1`]);
    expect(result.code).toBe(1);
    expect(lines(result.stdout).at(-1)).toBe('failed: CUDA OOM');
  });

  it('prints events and the outcome as JSON lines with --json', async () => {
    job = await startFakeJob(() => succeeding);
    const result = await run(['job-1', '--json', '--base-url', `${job.server.origin}/v1`]);
    const parsed = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(parsed).toEqual([...succeeding, { outcome: 'succeeded', steps: 2 }]);
  });

  it('rewrites one progress line in a terminal and ends with the verdict', async () => {
    job = await startFakeJob(() => succeeding);
    const result = await run(['job-1', '--base-url', `${job.server.origin}/v1`], { tty: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('\r\x1b[2Kjob job-1  running  step 2/2  loss=0.25 reward=0.5 learning_rate=5.00e-6  ');
    expect(result.stdout.endsWith('job job-1 succeeded\n')).toBe(true);
  });

  it('cuts the live line to the terminal width, so it can be rewritten in place', async () => {
    job = await startFakeJob(() => succeeding);
    const result = await run(['job-1', '--base-url', `${job.server.origin}/v1`], { tty: true, columns: 30 });
    const rewrites = result.stdout.split('\r\x1b[2K').slice(1).map((line) => line.split('\n')[0] as string);
    expect(rewrites.length).toBeGreaterThan(1);
    for (const line of rewrites) expect(line.length).toBeLessThan(30);
  });

  it('exits 1 with the service’s message when the job cannot be read', async () => {
    const server = await startLoopbackServer((_req, res) => sendJson(res, 404, { detail: 'Training job not found' }));
    try {
      const result = await run(['nope', '--base-url', `${server.origin}/v1`]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('Training job not found');
      expect(result.stderr).not.toContain('sk-cli-key-12345678');
    } finally {
      await server.close();
    }
  });

  it('exits 1 at once naming the address and how to start the service when nothing listens there', async () => {
    const origin = await deadOrigin();
    const result = await settlesWithin(run(['job-1', '--base-url', `${origin}/v1`]), 'weft jobs watch against a dead address', 10);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot reach the training service at ${origin}/v1 (ECONNREFUSED)`);
    expect(result.stderr).toContain('`weft dev`');
    expect(result.stderr).toContain('WEFT_TRAINING_BASE_URL');
    expect(result.stderr).not.toContain('sk-cli-key-12345678');
  });

  it('exits 2 with the usage when the job id is missing', async () => {
    const result = await run([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('a job id is required');
    expect(result.stderr).toContain('Usage: weft jobs watch <job-id>');
  });

  it('exits 2 naming the option when the base URL is not a URL', async () => {
    const result = await run(['job-1', '--base-url', 'not a url']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('`--base-url` (env WEFT_TRAINING_BASE_URL)');
  });

  it('exits 130 and says the job keeps running when interrupted', async () => {
    job = await startFakeJob(() => [event('e0', 'training_started')]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const result = await run(['job-1', '--base-url', `${job.server.origin}/v1`, '--interval', '0.005'], { signal: controller.signal });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('job job-1 keeps running');
  });
});
