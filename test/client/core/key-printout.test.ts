import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/index.js';
import { type RecordingServer, sendJson, startRecordingServer } from './recording-server.js';

// Not a real key: a marker that is easy to find in a printout.
const KEY = 'test-marker-key-0123456789';

let server: RecordingServer;
let client: Client;

beforeEach(async () => {
  server = await startRecordingServer((_req, res) => sendJson(res, 200, { object: 'list', data: [] }));
  client = new Client({
    apiKey: KEY,
    project: 'team/proj',
    baseUrl: server.url,
    inferenceBaseUrl: `${server.url}/v1`,
    trainingBaseUrl: `${server.url}/v1`,
  });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

/** Every object a user may print: the client, each service, and each resource of each service. */
function printables(c: Client): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [['client', c]];
  for (const [service, value] of Object.entries({ trace: c.trace, inference: c.inference, training: c.training })) {
    out.push([service, value]);
    for (const [name, resource] of Object.entries(value)) out.push([`${service}.${name}`, resource]);
  }
  out.push(['inference.chat.completions', c.inference.chat.completions]);
  out.push(['training.chat.completions', c.training.chat.completions]);
  return out;
}

describe('a client printout', () => {
  it('does not show the API key through util.inspect, at any depth', async () => {
    // After a request too, so that nothing the first request caches (agents, headers) shows it.
    await client.inference.models.list();
    for (const [name, value] of printables(client)) {
      expect(inspect(value, { depth: 20, showHidden: true }), name).not.toContain(KEY);
    }
  });

  it('does not show the API key through JSON.stringify', async () => {
    await client.inference.models.list();
    for (const [name, value] of printables(client)) {
      expect(JSON.stringify(value) ?? '', name).not.toContain(KEY);
    }
  });

  it('still sends the key with every request', async () => {
    await client.inference.models.list();
    await client.trace.service.health();
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
  });
});
