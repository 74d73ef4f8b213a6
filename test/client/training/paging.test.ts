import { afterEach, describe, expect, it } from 'vitest';
import type { CallOptions } from 'weft';
import { trainingClient, closeClients } from '../inference/support.js';
import { type FakeJob, event, startFakeJob } from './events-server.js';

let job: FakeJob | undefined;

afterEach(async () => {
  await closeClients();
  await job?.server.close();
  job = undefined;
});

const events = Array.from({ length: 7 }, (_, i) => event(`e${i + 1}`, 'gradient_step', { loss: 1 / (i + 1) }));

describe('paging helpers', () => {
  it('iterates every event of a job across pages, asking with the last id of each page', async () => {
    job = await startFakeJob(() => events);
    const seen = [];
    for await (const e of trainingClient(job.server.origin).jobs.events.listAll('job-1', { limit: 3 })) seen.push(e.id);
    expect(seen).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7']);
    expect(job.eventRequests().map((r) => r.query.get('after'))).toEqual([null, 'e3', 'e6']);
  });

  it('iterates every checkpoint of a model across pages, sending the order with every page', async () => {
    const checkpoints = [0, 1, 2, 3, 4].map((step) => ({ id: `c${step}`, step, metrics: step ? { loss: 1 / step } : ({} as Record<string, number>) }));
    job = await startFakeJob(() => [], { checkpoints });
    const client = trainingClient(job.server.origin);
    const steps = [];
    for await (const c of client.models.checkpoints.listAll('OpenPipe/Qwen3-14B-Instruct', { limit: 2, order: 'desc' })) steps.push(c.step);
    expect(steps).toEqual([0, 1, 2, 3, 4]);
    const requests = job.server.requests;
    expect(requests.map((r) => [r.query.get('after'), r.query.get('order'), r.query.get('limit')])).toEqual([
      [null, 'desc', '2'],
      ['c1', 'desc', '2'],
      ['c3', 'desc', '2'],
    ]);
  });

  it('sends only the query keys the service takes (after, limit, order) from every checkpoint page', async () => {
    const checkpoints = [0, 1, 2].map((step) => ({ id: `c${step}`, step, metrics: {} as Record<string, number> }));
    job = await startFakeJob(() => [], { checkpoints });
    // A params object that holds more than the list's query, as an app's own options object may.
    const params = { limit: 2, order: 'asc' as const, step: 3 };
    const client = trainingClient(job.server.origin);
    for await (const _ of client.models.checkpoints.listAll('m', params));
    await client.models.checkpoints.list('m', params);
    expect(job.server.requests.map((r) => [...r.query.keys()].sort())).toEqual([
      ['limit', 'order'],
      ['after', 'limit', 'order'],
      ['limit', 'order'],
    ]);
  });

  it('sends nothing of an option that is not a call option, as the trace and inference resources do', async () => {
    job = await startFakeJob(() => []);
    const client = trainingClient(job.server.origin);
    // What a caller without types might pass: a read must still go as a GET without a body, to its own path.
    const stray = { body: { debug: 1 }, query: { debug: '1' }, path: '/elsewhere' } as CallOptions;
    await client.jobs.events.list('job-1', {}, stray);
    await client.models.checkpoints.list('m', {}, stray);
    expect(job.server.requests.map((r) => [r.url, r.body])).toEqual([
      ['/v1/preview/training-jobs/job-1/events', ''],
      ['/v1/preview/models/m/checkpoints', ''],
    ]);
  });

  it('fetches no further page when the loop stops early', async () => {
    job = await startFakeJob(() => events);
    for await (const e of trainingClient(job.server.origin).jobs.events.listAll('job-1', { limit: 2 })) {
      if (e.id === 'e1') break;
    }
    expect(job.eventRequests()).toHaveLength(1);
  });
});

describe('path-like ids', () => {
  it('sends a path-like model id as one encoded path segment', async () => {
    job = await startFakeJob(() => []);
    const client = trainingClient(job.server.origin);
    await client.models.checkpoints.list('OpenPipe/Qwen3-14B-Instruct');
    await client.models.checkpoints.list('wandb-artifact:///e/p/m:step3');
    expect(job.server.requests.map((r) => r.path)).toEqual([
      '/v1/preview/models/OpenPipe%2FQwen3-14B-Instruct/checkpoints',
      '/v1/preview/models/wandb-artifact%3A%2F%2F%2Fe%2Fp%2Fm%3Astep3/checkpoints',
    ]);
  });

  it('sends a job id with reserved characters as one encoded path segment', async () => {
    job = await startFakeJob(() => []);
    await trainingClient(job.server.origin).jobs.events.list('jobs/42?x=1#y');
    expect(job.server.requests[0]?.url).toBe('/v1/preview/training-jobs/jobs%2F42%3Fx%3D1%23y/events');
  });

  it('refuses ids that a URL would read as relative paths, naming the parameter', async () => {
    const client = trainingClient('http://127.0.0.1:9');
    await expect(client.models.delete('..')).rejects.toThrow(/`modelId` cannot be "\.\."/);
    await expect(client.jobs.get('')).rejects.toThrow(/`jobId` must be a non-empty string/);
    await expect(client.jobs.events.listAll('.').next()).rejects.toThrow(/`jobId` cannot be "\."/);
  });
});
