import { afterAll, beforeAll, beforeEach } from 'vitest';
import { Client } from '../../../src/client/index.js';
import { type Handler, type RecordingServer, startRecordingServer } from '../core/recording-server.js';

/** A file's client for project team/proj and the recording server it talks to; requests are forgotten before each test. */
export interface RecordingClient {
  readonly server: RecordingServer;
  readonly client: Client;
}

/** Registers the file's hooks: one recording server and one client, closed after the file's tests. */
export function useRecordingClient(handler?: Handler): RecordingClient {
  let server: RecordingServer | undefined;
  let client: Client | undefined;
  beforeAll(async () => {
    server = await startRecordingServer(handler);
    client = new Client({ apiKey: 'not-a-key', project: 'team/proj', baseUrl: server.url, maxRetries: 0 });
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });
  beforeEach(() => {
    if (server) server.requests.length = 0;
  });
  return {
    get server() {
      if (!server) throw new Error('the recording server starts in beforeAll');
      return server;
    },
    get client() {
      if (!client) throw new Error('the client is made in beforeAll');
      return client;
    },
  };
}
