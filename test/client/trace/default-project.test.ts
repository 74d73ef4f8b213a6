import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/index.js';
import { type RecordingServer, startRecordingServer } from '../core/recording-server.js';

let server: RecordingServer;
let client: Client;

beforeAll(async () => {
  server = await startRecordingServer();
  client = new Client({ apiKey: 'not-a-key', project: 'team/proj', baseUrl: server.url, maxRetries: 0 });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

beforeEach(() => {
  server.requests.length = 0;
});

describe("a trace request's project_id", () => {
  it('is the client project when the request says project_id: undefined (body)', async () => {
    await client.trace.calls.queryStats({ project_id: undefined });
    expect(server.requests[0]?.json()).toEqual({ project_id: 'team/proj' });
  });

  it('is the client project when the request says project_id: undefined (query)', async () => {
    await client.trace.annotationQueues.read('q1', { project_id: undefined });
    expect(server.requests[0]?.query).toEqual({ project_id: 'team/proj' });
  });

  it("is the request's own when it names one", async () => {
    await client.trace.calls.queryStats({ project_id: 'other/proj' });
    expect(server.requests[0]?.json()).toEqual({ project_id: 'other/proj' });
  });
});
