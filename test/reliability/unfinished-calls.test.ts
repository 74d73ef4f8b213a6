import { describe, expect, it } from 'vitest';
import { StatusCodeValue } from '../../src/otlp/index.js';
import { loopbackPeersPerTest } from '../helpers/loopback-peers.js';
import { runFixture, startFixture, weftOptions } from './helpers/run-fixture.js';

// Calls still running when the process ends (a stream half-read at SIGTERM, an op awaiting forever at a crash, a
// stream opened and never read): their spans are ended as they stand and sent with the rest, failed with
// `error.type` CallUnfinished, while the process ends exactly as it would without weft.

const peers = loopbackPeersPerTest();

function env(mode: string, withWeft: boolean): Record<string, string> {
  return {
    CHAT_URL: peers.server.baseURL,
    EXIT_MODE: mode,
    ...(withWeft ? weftOptions({ baseUrl: peers.receiver.url, project: 'reliability/unfinished' }) : {}),
  };
}

async function run(mode: string, withWeft: boolean, signal?: NodeJS.Signals) {
  const app = startFixture('unfinished.cjs', env(mode, withWeft));
  if (signal) {
    await app.waitForOutput('READY');
    app.child.kill(signal);
  }
  return app.exited;
}

/** The op's span and the chat span under it, as the receiver decoded them. */
function spans() {
  const all = peers.receiver.spans();
  const op = all.find((s) => s.name === 'answer');
  const chat = all.find((s) => s.name === 'chat gpt-4o-mini');
  return { op, chat };
}

function expectUnfinished(span: ReturnType<typeof spans>['chat'], why: string) {
  expect(span?.status.code).toBe(StatusCodeValue.ERROR);
  expect(span?.status.message).toBe(`CallUnfinished: ${why} before this call ended; recorded as it stood`);
}

describe('a call still running when the process ends', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`on ${signal}: sent with what the stream had received, and the process ends by the signal as without weft`, async () => {
      const without = await run('signal', false, signal);
      const withWeft = await run('signal', true, signal);
      expect(without.signal).toBe(signal);
      expect({ code: withWeft.code, signal: withWeft.signal }).toEqual({ code: without.code, signal: without.signal });
      const { op, chat } = spans();
      expectUnfinished(chat, `the process received ${signal}`);
      expect(chat?.attributes['error.type']).toBe('CallUnfinished');
      expect(chat?.attributes['gen_ai.output.messages']).toEqual(expect.any(String));
      expectUnfinished(op, `the process received ${signal}`);
      expect(chat?.parentSpanId).toBe(op?.spanId);
    });
  }

  it('at an uncaught exception: sent, and the process exits 1 with the error printed as without weft', async () => {
    const without = await run('uncaught', false);
    const withWeft = await run('uncaught', true);
    expect(without.code).toBe(1);
    expect(withWeft.code).toBe(1);
    expect(withWeft.stderr).toContain('the app failed on its own');
    const { op, chat } = spans();
    expectUnfinished(chat, 'the process crashed on an uncaught exception');
    expectUnfinished(op, 'the process crashed on an uncaught exception');
  });

  it('at process.exit(): sent, and the process exits with the code the app gave as without weft', async () => {
    const without = await run('exit', false);
    const withWeft = await run('exit', true);
    expect(without.code).toBe(5);
    expect(withWeft.code, withWeft.stderr).toBe(5);
    const { op, chat } = spans();
    expectUnfinished(chat, 'the process exited');
    expect(chat?.attributes['error.type']).toBe('CallUnfinished');
    expectUnfinished(op, 'the process exited');
  });

  it("when the app runs out of work and has a beforeExit listener of its own: sent as the process exits", async () => {
    const without = await run('app-before-exit', false);
    const withWeft = await run('app-before-exit', true);
    expect(withWeft.code, withWeft.stderr).toBe(without.code);
    const { op, chat } = spans();
    expectUnfinished(chat, 'the process exited');
    expectUnfinished(op, 'the process exited');
  });

  it('a stream the app left at its last choice, just before process.exit(): sent as complete, not as failed', async () => {
    const withWeft = await run('left-at-finish', true);
    expect(withWeft.code, withWeft.stderr).toBe(0);
    const { op, chat } = spans();
    expect(chat?.status.code).not.toBe(StatusCodeValue.ERROR);
    expect(chat?.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
    expectUnfinished(op, 'the process exited');
  });

  it('a stream opened and never read, when the app runs out of work: sent, and the op failed with its own error', async () => {
    const without = await runFixture('unfinished.cjs', env('unread', false));
    const withWeft = await runFixture('unfinished.cjs', env('unread', true));
    expect(withWeft.reports).toEqual([{ caught: 'question too short' }]);
    expect(withWeft.code).toBe(without.code);
    const { op, chat } = spans();
    expectUnfinished(chat, 'the process had nothing left to run');
    expect(op?.status.message).toBe('Error: question too short');
  });

  it('at shutdown(): the stream is sent as it stood, and the app reads the rest unchanged', async () => {
    const without = await runFixture('unfinished.cjs', env('shutdown', false));
    const withWeft = await runFixture('unfinished.cjs', env('shutdown', true));
    expect(withWeft.reports).toEqual(without.reports);
    expect(withWeft.code, withWeft.stderr).toBe(0);
    const { chat } = spans();
    expectUnfinished(chat, 'weft was shut down');
  });

  it('at shutdown() before the stream is read: the app then reads the chunks it would without weft, none of the usage weft asked for', async () => {
    const without = await runFixture('unfinished.cjs', env('shutdown-unread', false));
    const withWeft = await runFixture('unfinished.cjs', env('shutdown-unread', true));
    expect(withWeft.code, withWeft.stderr).toBe(0);
    expect(peers.server.requests.at(-1)?.body?.stream_options).toEqual({ include_usage: true });
    expect(withWeft.reports).toEqual(without.reports);
    const { chat } = spans();
    expectUnfinished(chat, 'weft was shut down');
  });

  it('an API promise an op returned and the app dropped unread: both spans end without output, not as failed', async () => {
    const without = await runFixture('unfinished.cjs', env('dropped', false));
    const withWeft = await runFixture('unfinished.cjs', env('dropped', true));
    expect(withWeft.code, withWeft.stderr).toBe(without.code);
    const all = peers.receiver.spans();
    const ask = all.find((s) => s.name === 'ask');
    const chat = all.find((s) => s.name === 'chat gpt-4o-mini');
    for (const span of [ask, chat]) expect(span?.status.code).toBe(StatusCodeValue.UNSET);
    expect(ask?.attributes).not.toHaveProperty('output');
    expect(chat?.attributes).not.toHaveProperty('gen_ai.output.messages');
    expect(chat?.parentSpanId).toBe(ask?.spanId);
  });
});
