import { EventEmitter } from 'node:events';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, op, register, safeStringify, type WeftHandle, withSpan } from 'weft';
import type { DecodedSpan } from '../../src/otlp/index.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { inputsOf, named, outputOf } from './harness.js';

// Recognisable keys: weft's own (given to register()), and a weft client's.
const WEFT_KEY = 'wk-scrub-canary-7d3e91b04f';
const CLIENT_KEY = 'wk-client-canary-2a6c58e1d9';
// A proxy's credential in register()'s `headers`.
const PROXY_TOKEN = 'px-header-canary-5b1f0c7a3e';

let receiver: OtlpReceiver;
let weft: WeftHandle;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  weft = register({ baseUrl: receiver.url, project: 'test/scrub', apiKey: WEFT_KEY, headers: { 'x-proxy-token': PROXY_TOKEN }, instrumentations: [], flushOnExit: false });
});
afterAll(async () => {
  await weft.shutdown();
  await receiver.close();
});

async function capture(work: () => unknown): Promise<DecodedSpan[]> {
  const before = receiver.spans().length;
  await work();
  await weft.forceFlush();
  return receiver.spans().slice(before);
}

/** Every attribute of every span, and every byte that crossed the wire except the Authorization header. */
function everythingRecorded(spans: DecodedSpan[]): string {
  const attributes = JSON.stringify(spans.map((s) => s.attributes));
  const bodies = receiver.requests.map((r) => r.body.toString('latin1')).join('\n');
  return `${attributes}\n${bodies}`;
}

describe('an API key handed to an op', () => {
  it("is kept out of the recorded inputs and output under any name and inside strings", async () => {
    const call = op(function call(settings: Record<string, unknown>, header: string) {
      return { echoed: `token was ${WEFT_KEY}`, settings, headerLength: header.length };
    });
    const spans = await capture(() => call({ myApiKey: WEFT_KEY, nested: { note: `key=${WEFT_KEY};` } }, `Bearer ${WEFT_KEY}`));

    const span = named(spans, 'call');
    expect(inputsOf(span)).toEqual({
      settings: { myApiKey: '[weft: redacted]', nested: { note: 'key=[REDACTED];' } },
      header: 'Bearer [REDACTED]',
    });
    expect(outputOf(span)).toMatchObject({ echoed: 'token was [REDACTED]' });
    expect(everythingRecorded(spans)).not.toContain(WEFT_KEY);
  });

  it("is kept out when it is a credential from register()'s headers", async () => {
    const leak = op(function leak(note: string) {
      return { note };
    });
    const spans = await capture(() => leak(`proxy token ${PROXY_TOKEN}`));
    expect(inputsOf(named(spans, 'leak'))).toEqual({ note: 'proxy token [REDACTED]' });
    expect(everythingRecorded(spans)).not.toContain(PROXY_TOKEN);
  });

  it('is kept out when a plain string output is the key itself', async () => {
    const reveal = op(function reveal() {
      return WEFT_KEY;
    });
    const spans = await capture(() => reveal());
    expect(named(spans, 'reveal').attributes.output).toBe('[REDACTED]');
    expect(everythingRecorded(spans)).not.toContain(WEFT_KEY);
  });

  it("is kept out when a weft client, which holds its key, is an op's argument", async () => {
    const client = new Client({ apiKey: CLIENT_KEY, baseUrl: 'http://127.0.0.1:9', project: 'test/scrub' });
    const useClient = op(function useClient(c: Client) {
      return c;
    });
    const spans = await capture(() => useClient(client));
    const recorded = everythingRecorded(spans);
    expect(named(spans, 'useClient').attributes.inputs).toBeTypeOf('string');
    expect(recorded).not.toContain(CLIENT_KEY);
    expect(recorded).not.toContain(CLIENT_KEY.slice(-12));
  });

  it("is kept out of withSpan's inputs and the outputs its handle sets", async () => {
    const spans = await capture(() =>
      withSpan(
        'block',
        (span) => {
          span.setOutput({ line: `Authorization: Bearer ${WEFT_KEY}` });
        },
        { inputs: { url: `https://api.example.com/?key=${WEFT_KEY}` } },
      ),
    );
    expect(everythingRecorded(spans)).not.toContain(WEFT_KEY);
  });
});

describe("an HTTP request handed to an op, as a request handler's is", () => {
  it('is recorded as its method, URL and headers, credentials redacted; the response and the socket by their names', async () => {
    const handle = op(function handle(req: IncomingMessage, res: ServerResponse) {
      res.end('ok');
      return { socket: req.socket };
    });
    const server = createServer((req, res) => {
      // What a framework parses before the handler runs (Express's body-parser and router).
      Object.assign(req, { body: { question: 'why?', password: 'body-canary-3c9d' }, params: { id: '7' } });
      void handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const spans = await capture(async () => {
        const answer = await fetch(`http://127.0.0.1:${port}/ask?q=1&access_token=query-canary-5e0b&key=key-canary-1f4a`, {
          headers: { authorization: `Bearer ${WEFT_KEY}`, cookie: 'session=cookie-canary-81f2', 'x-api-key': 'header-canary-77a1', 'x-trace': 'kept' },
        });
        await answer.text();
      });
      const span = named(spans, 'handle');
      const inputs = inputsOf(span) as { req: { method: string; url: string; headers: Record<string, string> }; res: unknown };
      expect(inputs.req).toMatchObject({
        method: 'GET',
        url: '/ask?q=1&access_token=%5Bweft%3A%20redacted%5D&key=%5Bweft%3A%20redacted%5D',
        params: { id: '7' },
        body: { question: 'why?', password: '[weft: redacted]' },
      });
      expect(inputs.req.headers).toMatchObject({
        authorization: '[weft: redacted]',
        cookie: '[weft: redacted]',
        'x-api-key': '[weft: redacted]',
        'x-trace': 'kept',
      });
      expect(inputs.res).toBe('[ServerResponse]');
      expect(outputOf(span)).toEqual({ socket: '[Socket]' });
      const recorded = everythingRecorded(spans);
      for (const secret of [WEFT_KEY, 'cookie-canary-81f2', 'header-canary-77a1', 'query-canary-5e0b', 'key-canary-1f4a', 'body-canary-3c9d']) {
        expect(recorded).not.toContain(secret);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("an app's own event emitter handed to an op", () => {
  it('is recorded by its fields, without the emitter bookkeeping every one has', async () => {
    class Agent extends EventEmitter {
      constructor(
        readonly name: string,
        readonly goal: string,
      ) {
        super();
        this.on('step', () => undefined);
      }
    }
    const run = op(function run(agent: Agent) {
      return agent.goal.length;
    });
    const spans = await capture(() => run(new Agent('bob', 'find the answer')));
    expect(inputsOf(named(spans, 'run'))).toEqual({ agent: { name: 'bob', goal: 'find the answer' } });
  });
});

describe('values under credential-like names', () => {
  it('are redacted whatever their case and style, while token counts stay readable', async () => {
    const settings = op(function settings(options: Record<string, unknown>) {
      return options;
    });
    const spans = await capture(() =>
      settings({
        OPENAI_API_KEY: 'sk-other-1',
        apiKeys: ['sk-other-2'],
        csrfToken: 'csrf-3',
        clientSecret: 'cs-4',
        secrets: ['s-5'],
        Authorization: 'Basic x',
        dbPassword: 'pw-6',
        max_tokens: 9,
        usage: { total_tokens: 7 },
      }),
    );
    expect(inputsOf(named(spans, 'settings'))).toEqual({
      options: {
        OPENAI_API_KEY: '[weft: redacted]',
        apiKeys: '[weft: redacted]',
        csrfToken: '[weft: redacted]',
        clientSecret: '[weft: redacted]',
        secrets: '[weft: redacted]',
        Authorization: '[weft: redacted]',
        dbPassword: '[weft: redacted]',
        max_tokens: 9,
        usage: { total_tokens: 7 },
      },
    });
  });
});

describe('a key where a long string is cut', () => {
  // The key starts just before the cut, across it, or just after: no part of it may be kept.
  const around = (cut: number) => [cut - 12, cut - 4, cut - 1, cut, cut + 3].map((at) => `${'a'.repeat(at)}${WEFT_KEY}${'b'.repeat(5000)}`);

  it('is never left in part by safeStringify', () => {
    for (const text of around(100)) {
      const json = safeStringify({ text }, { maxLength: 100 });
      expect(json).not.toContain(WEFT_KEY.slice(0, 4));
      expect(JSON.parse(json).text).toMatch(/more chars\]$/);
    }
  });

  it("is never left in part in an op's recorded string output", async () => {
    // A string output is cut at maxAttributeLength less the 1,024 characters kept for markers.
    for (const text of around(1024)) {
      const echo = op(function echo() {
        return text;
      }, { maxAttributeLength: 2048 });
      const spans = await capture(() => echo());
      const output = String(named(spans, 'echo').attributes.output);
      expect(output).not.toContain(WEFT_KEY.slice(0, 4));
      expect(output).toMatch(/more chars\]$/);
    }
  });
});
