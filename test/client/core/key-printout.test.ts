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

describe('an error whose body quotes the API key back', () => {
  // A key with characters that JSON escapes and a URL percent-encodes: quoted back, it is not the key's own text.
  const ODD_KEY = 'test-marker-"quote"\\back/slash+key&0123';

  it('shows the key in none of its forms, through the message, the body, the detail, util.inspect or JSON', async () => {
    const echo = await startRecordingServer((_req, res) =>
      sendJson(res, 401, {
        detail: `Key ${ODD_KEY} was not accepted (see /keys?key=${encodeURIComponent(ODD_KEY)})`,
        echoed: { [ODD_KEY]: [ODD_KEY] },
      }),
    );
    const odd = new Client({ apiKey: ODD_KEY, project: 'team/proj', baseUrl: echo.url });
    try {
      const error = await odd.trace.service.serverInfo().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      const printouts = [
        String(error),
        inspect(error, { depth: 20, showHidden: true }),
        JSON.stringify(error),
        JSON.stringify((error as { body?: unknown }).body),
        JSON.stringify((error as { detail?: unknown }).detail),
      ];
      for (const printout of printouts) {
        for (const form of [ODD_KEY, encodeURIComponent(ODD_KEY), JSON.stringify(ODD_KEY).slice(1, -1)]) {
          expect(printout).not.toContain(form);
        }
      }
      expect((error as { body?: unknown }).body).toMatchObject({ echoed: { '***': ['***'] } });
    } finally {
      await odd.close();
      await echo.close();
    }
  });
});
