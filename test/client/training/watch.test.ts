import { afterEach, describe, expect, it } from 'vitest';
import {
  Client,
  type RetryEvent,
  type TrainingJobEvent,
  WeftAbortError,
  WeftConfigError,
  WeftConnectionError,
  WeftNotFoundError,
  WeftServerError,
} from 'weft';
import { sendJson, startLoopbackServer } from '../inference/loopback-server.js';
import { trainingClient, closeClients } from '../inference/support.js';
import { deadOrigin } from '../../helpers/dead-origin.js';
import { settlesWithin } from '../../helpers/deadline.js';
import { type FakeJob, event, startFakeJob } from './events-server.js';

let job: FakeJob | undefined;

afterEach(async () => {
  await closeClients();
  await job?.server.close();
  job = undefined;
});

const FAST = { pollIntervalMs: 2, maxPollIntervalMs: 5 };

const started = event('e0', 'training_started', { num_sequences: 3 });
const steps = [1, 2, 3].map((n) => event(`e${n}`, 'gradient_step', { loss: 1 / n, reward: n / 10 }));
const ended = event('e4', 'training_ended');

describe('training.jobs.watch', () => {
  it('follows pages, polls until the job ends, and resolves with every event once', async () => {
    const all = [started, ...steps, ended];
    // The job reveals two more events per poll; pages hold two events.
    job = await startFakeJob((n) => all.slice(0, 2 + n));
    const seen: string[] = [];
    const outcome = await trainingClient(job.server.origin).jobs.watch('job-1', {
      ...FAST,
      pageSize: 2,
      onEvent: (e) => seen.push(e.id),
    });
    expect(outcome.status).toBe('succeeded');
    expect(outcome.error).toBeUndefined();
    expect(outcome.events.map((e) => e.id)).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
    expect(seen).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
    expect(outcome.progress).toMatchObject({ status: 'succeeded', step: 3, totalSteps: 3, metrics: { loss: 1 / 3, reward: 0.3 } });
    expect(job.eventRequests()[0]?.query.get('after')).toBeNull();
    expect(job.eventRequests().slice(1).every((r) => r.query.get('after') !== null)).toBe(true);
  });

  it('reports each event once when the service delivers some again', async () => {
    const all = [started, ...steps, ended];
    job = await startFakeJob((n) => all.slice(0, 2 + n), { redeliver: true });
    const seen: TrainingJobEvent[] = [];
    const outcome = await trainingClient(job.server.origin).jobs.watch('job-1', { ...FAST, pageSize: 2, onEvent: (e) => seen.push(e) });
    expect(seen.map((e) => e.id)).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
    expect(outcome.events).toHaveLength(5);
  });

  it('resolves a failed job as failed, with the service’s message', async () => {
    job = await startFakeJob(() => [started, steps[0] as TrainingJobEvent, event('e9', 'training_failed', { error_message: 'CUDA OOM' })]);
    const outcome = await trainingClient(job.server.origin).jobs.watch('job-1', FAST);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toBe('CUDA OOM');
    expect(outcome.progress.step).toBe(1);
  });

  it('gives a failed job without a message a generic one', async () => {
    job = await startFakeJob(() => [event('e9', 'training_failed')]);
    const outcome = await trainingClient(job.server.origin).jobs.watch('job-1', FAST);
    expect(outcome).toMatchObject({ status: 'failed', error: 'Training failed with an unknown error' });
  });

  it('stops with an abort error when the signal fires while waiting for events', async () => {
    job = await startFakeJob(() => [started]);
    const controller = new AbortController();
    const watching = trainingClient(job.server.origin).jobs.watch('job-1', {
      ...FAST,
      signal: controller.signal,
      onEvent: () => setTimeout(() => controller.abort(new Error('user stopped')), 10),
    });
    const error = await watching.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftAbortError);
    expect((error as WeftAbortError).cause).toEqual(new Error('user stopped'));
  });

  it('rejects when the job cannot be read', async () => {
    const server = await startLoopbackServer((_req, res) => sendJson(res, 404, { detail: 'Training job not found' }));
    try {
      const error = await trainingClient(server.origin).jobs.watch('nope', FAST).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WeftNotFoundError);
      expect((error as Error).message).toContain('Training job not found');
    } finally {
      await server.close();
    }
  });

  it('waits out a brief outage of the service and goes on', async () => {
    let calls = 0;
    const all = [started, ended];
    const server = await startLoopbackServer((req, res) => {
      calls += 1;
      // Three 503s: the HTTP core's own retries of the first poll, then one failed poll the watch waits out.
      if (calls <= 3) sendJson(res, 503, { detail: 'The engine is currently overloaded' });
      else sendJson(res, 200, { object: 'list', data: req.query.get('after') ? [] : all, has_more: false });
    });
    try {
      const outcome = await trainingClient(server.origin).jobs.watch('job-1', FAST);
      expect(outcome.status).toBe('succeeded');
      expect(calls).toBe(4);
    } finally {
      await server.close();
    }
  });

  it('resumes after the last page it read when a later page of a poll fails', async () => {
    let failures = 0;
    const server = await startLoopbackServer((req, res) => {
      const after = req.query.get('after');
      if (after === null) return sendJson(res, 200, { object: 'list', data: [started, steps[0]], has_more: true });
      // The second page fails the HTTP core's three attempts, so the whole poll fails; the next poll asks again.
      if (after === 'e1' && failures++ < 3) return sendJson(res, 503, { detail: 'down' });
      sendJson(res, 200, { object: 'list', data: after === 'e1' ? [steps[1], ended] : [], has_more: false });
    });
    try {
      const outcome = await trainingClient(server.origin).jobs.watch('job-1', FAST);
      expect(outcome.events.map((e) => e.id)).toEqual(['e0', 'e1', 'e2', 'e4']);
      expect(server.requests.map((r) => r.query.get('after'))).toEqual([null, 'e1', 'e1', 'e1', 'e1']);
    } finally {
      await server.close();
    }
  });

  it('ends a poll at a page that claims more but does not move the cursor, and polls on', async () => {
    let requests = 0;
    const server = await startLoopbackServer((_req, res) => {
      requests += 1;
      sendJson(res, 200, { object: 'list', data: requests < 5 ? [started] : [ended], has_more: true });
    });
    try {
      const outcome = await trainingClient(server.origin).jobs.watch('job-1', FAST);
      expect(outcome.events.map((e) => e.id)).toEqual(['e0', 'e4']);
      // The first poll follows has_more once and stops where the cursor stood still; each later poll asks once.
      expect(server.requests.map((r) => r.query.get('after'))).toEqual([null, 'e0', 'e0', 'e0', 'e0']);
    } finally {
      await server.close();
    }
  });

  it('gives up with the last error when the outage outlasts maxConsecutiveErrors', async () => {
    const server = await startLoopbackServer((_req, res) => sendJson(res, 503, { detail: 'down' }));
    try {
      const error = await trainingClient(server.origin)
        .jobs.watch('job-1', { ...FAST, maxConsecutiveErrors: 1 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WeftServerError);
      // Two polls of three attempts each (the core retries twice).
      expect(server.requests).toHaveLength(6);
    } finally {
      await server.close();
    }
  });

  it('stops when the client is closed while it waits between polls', async () => {
    job = await startFakeJob(() => [started]);
    const client = new Client({ trainingBaseUrl: `${job.server.origin}/v1` });
    let closed: Promise<void> | undefined;
    const watching = client.training.jobs.watch('job-1', {
      pollIntervalMs: 600_000,
      onEvent: () => {
        closed = client.close();
      },
    });
    const error = await settlesWithin(
      watching.catch((e: unknown) => e),
      'the watch of a closed client',
    );
    await closed;
    expect(error).toBeInstanceOf(WeftConnectionError);
    expect(error).toMatchObject({ code: 'WEFT_CLIENT_CLOSED' });
    expect(job.eventRequests()).toHaveLength(1);
  });

  it('rejects at once when the service cannot be reached at all, rather than waiting it out', async () => {
    const origin = await deadOrigin();
    const watching = trainingClient(origin).jobs.watch('job-1', { pollIntervalMs: 600_000 });
    const error = await settlesWithin(
      watching.catch((e: unknown) => e),
      'the watch of an unreachable service',
    );
    expect(error).toBeInstanceOf(WeftConnectionError);
    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('still waits out a refused connection once the service has answered', async () => {
    job = await startFakeJob(() => [started]);
    const retries: RetryEvent[] = [];
    const client = new Client({
      trainingBaseUrl: `${job.server.origin}/v1`,
      backoff: { initialDelayMs: 1, maxDelayMs: 5 },
      onRetry: (e) => retries.push(e),
    });
    const server = job.server;
    try {
      const error = await client.training.jobs
        .watch('job-1', { ...FAST, maxConsecutiveErrors: 2, onEvent: () => void server.close() })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WeftConnectionError);
      expect(error).toMatchObject({ code: 'ECONNREFUSED' });
      // Three refused polls (the first and the two waited out), each retried twice by the HTTP core.
      expect(retries).toHaveLength(6);
    } finally {
      await client.close();
    }
  });

  it('rejects an interval that is not a positive number, naming it', async () => {
    const watching = trainingClient('http://127.0.0.1:9').jobs.watch('j', { pollIntervalMs: 0 });
    await expect(watching).rejects.toThrow(/option `pollIntervalMs` must be a positive number of milliseconds/);
    await expect(watching).rejects.toBeInstanceOf(WeftConfigError);
    await expect(watching).rejects.toMatchObject({ option: 'pollIntervalMs' });
  });
});
