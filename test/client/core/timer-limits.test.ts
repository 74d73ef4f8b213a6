import { afterEach, describe, expect, it } from 'vitest';
import { WeftConfigError } from '../../../src/config/index.js';
import { Client } from '../../../src/client/index.js';
import { event, startFakeJob, type FakeJob } from '../training/events-server.js';
import { closeClients, trainingClient } from '../inference/support.js';
import { type RecordingServer, startRecordingServer } from './recording-server.js';

/** One past the longest delay a Node timer can wait; a timer asked for it fires after 1 ms instead. */
const TOO_LONG = 2 ** 31;

let server: RecordingServer | undefined;
let job: FakeJob | undefined;

afterEach(async () => {
  await closeClients();
  await server?.close();
  await job?.server.close();
  server = undefined;
  job = undefined;
});

describe('a delay option longer than a Node timer can wait', () => {
  it('is refused by the Client, naming timeoutMs', () => {
    expect(() => new Client({ baseUrl: 'http://127.0.0.1:1', timeoutMs: TOO_LONG })).toThrow(WeftConfigError);
    expect(() => new Client({ baseUrl: 'http://127.0.0.1:1', timeoutMs: TOO_LONG })).toThrow(/`timeoutMs`/);
  });

  it('is refused by the Client as a backoff delay, naming it', () => {
    expect(() => new Client({ baseUrl: 'http://127.0.0.1:1', backoff: { maxDelayMs: TOO_LONG } })).toThrow(/`backoff.maxDelayMs`/);
  });

  it('is accepted at the limit itself', async () => {
    const client = new Client({ baseUrl: 'http://127.0.0.1:1', timeoutMs: TOO_LONG - 1 });
    await client.close();
  });

  it('rejects a call given it, naming timeoutMs, before any request', async () => {
    server = await startRecordingServer();
    const client = new Client({ project: 'team/proj', baseUrl: server.url, maxRetries: 0 });
    try {
      const error = await client.trace.service.health({ timeoutMs: TOO_LONG }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(WeftConfigError);
      expect((error as WeftConfigError).option).toBe('timeoutMs');
      expect(server.requests).toHaveLength(0);
    } finally {
      await client.close();
    }
  });

  it('rejects a job watch given it as pollIntervalMs, before any request', async () => {
    job = await startFakeJob(() => [event('e0', 'training_started'), event('e1', 'training_ended')]);
    const watching = trainingClient(job.server.origin).jobs.watch('job-1', { pollIntervalMs: TOO_LONG });
    await expect(watching).rejects.toThrow(/`pollIntervalMs`/);
    await expect(watching).rejects.toBeInstanceOf(WeftConfigError);
    await expect(watching).rejects.toMatchObject({ option: 'pollIntervalMs' });
    expect(job.eventRequests()).toHaveLength(0);
  });

  it('rejects a job watch given it as maxPollIntervalMs, before any request', async () => {
    job = await startFakeJob(() => [event('e0', 'training_started'), event('e1', 'training_ended')]);
    const watching = trainingClient(job.server.origin).jobs.watch('job-1', { pollIntervalMs: 10, maxPollIntervalMs: TOO_LONG });
    await expect(watching).rejects.toThrow(/`maxPollIntervalMs`/);
    await expect(watching).rejects.toBeInstanceOf(WeftConfigError);
    await expect(watching).rejects.toMatchObject({ option: 'maxPollIntervalMs' });
    expect(job.eventRequests()).toHaveLength(0);
  });
});
