import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtlpReceiver, type ReceivedExport, type ReceiverReply, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { type ReliabilityChatServer, startReliabilityChatServer } from './helpers/chat-server.js';
import { type FixtureRun, runFixture, weftOptions } from './helpers/run-fixture.js';
import { deadOrigin } from '../helpers/dead-origin.js';

// Recognisable keys: if either shows up anywhere but the one header that must carry it, it leaked.
const WEFT_KEY = 'wk-canary-5b1f9e73c2d84a06';
const OPENAI_KEY = 'sk-canary-openai-0c7e4d2a91f3';
const CANARIES = [WEFT_KEY, OPENAI_KEY, WEFT_KEY.slice(-12), OPENAI_KEY.slice(-12)];

let chat: ReliabilityChatServer;

beforeAll(async () => {
  chat = await startReliabilityChatServer();
});
afterAll(() => chat.close());

function leaksIn(where: string, text: string): string[] {
  return CANARIES.filter((c) => text.includes(c)).map((c) => `${where} contains ${c}`);
}

/** Everything a receiver got that is not the Authorization header: bodies (raw bytes) and all other headers. */
function exportedBytes(receiver: OtlpReceiver): string {
  return receiver.requests
    .map((r) => {
      const { authorization: _auth, ...headers } = r.headers;
      return `${JSON.stringify(headers)}\n${r.body.toString('latin1')}`;
    })
    .join('\n');
}

function childOutput(run: FixtureRun): string {
  return `${run.stdout}\n${run.stderr}`;
}

const appEnv = (baseUrl: string) => ({
  SCENARIO: 'app',
  CHAT_URL: chat.baseURL,
  APP_OPENAI_KEY: OPENAI_KEY,
  WEFT_TEST_KEY: WEFT_KEY,
  WEFT_LOG_LEVEL: 'verbose',
  ...weftOptions({ baseUrl, project: 'reliability/secrets', apiKey: WEFT_KEY, batch: { exportTimeoutMillis: 2000 } }),
});

// The header as the backend got it, which a careless backend quotes back in what it answers.
const quoted = (request: ReceivedExport) => String(request.headers.authorization);
const backends: Record<string, (request: ReceivedExport) => ReceiverReply> = {
  'accepting everything': () => ({ status: 200 }),
  'refusing the key with 401': () => ({ status: 401, body: '{"detail":"invalid key"}' }),
  'failing with 500': () => ({ status: 500, body: '{"detail":"internal"}' }),
  'throttling with 429': () => ({ status: 429, headers: { 'retry-after': '0' }, body: '{}' }),
  'refusing the key with a 401 that quotes it': (request) => ({ status: 401, body: JSON.stringify({ detail: `invalid key: ${quoted(request)}` }) }),
  'failing with a 500 that quotes the key': (request) => ({ status: 500, body: `internal error for ${quoted(request)}` }),
  // weft says what the service said of the spans it refused: the warning must reach the log, without the key.
  'taking the spans but rejecting some, quoting the key': (request) => ({
    status: 200,
    body: JSON.stringify({ partial_success: { rejected_spans: 1, error_message: `span refused for ${quoted(request)}` } }),
  }),
};
/** What weft must have said on stderr, with a backend that answers so: proof the path that could leak was taken. */
const said: Record<string, string> = { 'taking the spans but rejecting some, quoting the key': 'span refused for Bearer [REDACTED]' };

describe('a recognisable API key', () => {
  for (const [backend, reply] of Object.entries(backends)) {
    it(`never leaves weft except in the Authorization header, with a backend ${backend}`, async () => {
      const receiver = await startOtlpReceiver({ reply });
      try {
        const run = await runFixture('secrets.cjs', appEnv(receiver.url));
        expect(run.reports.length, run.stderr).toBeGreaterThan(0);
        expect(receiver.requests.length).toBeGreaterThan(0);
        expect(receiver.requests.every((r) => r.headers.authorization === `Bearer ${WEFT_KEY}`)).toBe(true);
        if (said[backend]) expect(run.stderr).toContain(said[backend]);
        expect([...leaksIn('exported bytes', exportedBytes(receiver)), ...leaksIn('app output', childOutput(run))]).toEqual([]);
      } finally {
        await receiver.close();
      }
    });
  }

  it('never appears in logs or errors when the backend is down', async () => {
    const run = await runFixture('secrets.cjs', appEnv(await deadOrigin()));
    expect(run.reports.length, run.stderr).toBeGreaterThan(0);
    expect(leaksIn('app output', childOutput(run))).toEqual([]);
  });

  it('never appears in logs or errors when the backend hangs', async () => {
    const receiver = await startOtlpReceiver({ reply: () => 'hang' });
    try {
      const run = await runFixture('secrets.cjs', appEnv(receiver.url));
      expect(run.reports.length, run.stderr).toBeGreaterThan(0);
      expect([...leaksIn('exported bytes', exportedBytes(receiver)), ...leaksIn('app output', childOutput(run))]).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('never leaves weft when an op() is handed the OpenAI client, which holds the key', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const run = await runFixture('secrets.cjs', { ...appEnv(receiver.url), OP_WITH_CLIENT: '1' });
      expect(run.reports.length, run.stderr).toBeGreaterThan(0);
      expect(receiver.spans().some((s) => s.name === 'answer')).toBe(true);
      expect([...leaksIn('exported bytes', exportedBytes(receiver)), ...leaksIn('app output', childOutput(run))]).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('is repeated neither in spans, logs nor weft\'s own errors when the chat server echoes it in a 401', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const run = await runFixture('secrets.cjs', { ...appEnv(receiver.url), ECHOING_SERVER: '1' });
      const report = run.reports.find((r) => r.errors) as { errors: string[] } | undefined;
      expect(report?.errors.filter((e) => e.startsWith('weft client')), run.stderr).toHaveLength(2);
      // The server did echo the app's key: the `openai` SDK's own errors quote it, as they would without weft.
      const isSdkError = (line: string) => line.includes('"phase":"sdk-error"');
      const sdkErrors = run.stdout.split('\n').filter(isSdkError);
      expect(sdkErrors).toHaveLength(2);
      for (const line of sdkErrors) expect(line).toContain(OPENAI_KEY);
      const everythingElse = `${run.stdout.split('\n').filter((line) => !isSdkError(line)).join('\n')}\n${run.stderr}`;
      expect(receiver.spans().filter((s) => s.events.some((e) => e.name === 'exception')).length).toBeGreaterThanOrEqual(4);
      expect([...leaksIn('exported bytes', exportedBytes(receiver)), ...leaksIn('app output', everythingElse)]).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('never appears in the errors and warnings of bad configuration', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const run = await runFixture('secrets.cjs', {
        SCENARIO: 'bad-config',
        WEFT_TEST_KEY: WEFT_KEY,
        WEFT_LOG_LEVEL: 'verbose',
        TRACE_URL: receiver.url,
      });
      const report = run.reports[0] as { errors: string[] } | undefined;
      expect(report?.errors.some((e) => e.startsWith('WeftConfigError')), run.stderr).toBe(true);
      expect([...leaksIn('exported bytes', exportedBytes(receiver)), ...leaksIn('app output', childOutput(run))]).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('never appears when weft is configured from the environment by weft/register', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const run = await runFixture(
        'secrets.cjs',
        {
          SCENARIO: 'app',
          WITH_WEFT: '1',
          WEFT_OPTIONS: '{}',
          CHAT_URL: chat.baseURL,
          APP_OPENAI_KEY: OPENAI_KEY,
          WEFT_API_KEY: WEFT_KEY,
          WEFT_BASE_URL: receiver.url,
          WEFT_PROJECT: 'reliability/secrets',
          WEFT_LOG_LEVEL: 'verbose',
        },
        ['--require', 'weft/register'],
      );
      expect(run.reports.length, run.stderr).toBeGreaterThan(0);
      expect(receiver.requests.length).toBeGreaterThan(0);
      expect([...leaksIn('exported bytes', exportedBytes(receiver)), ...leaksIn('app output', childOutput(run))]).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
