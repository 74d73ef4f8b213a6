import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { type ReliabilityChatServer, startReliabilityChatServer } from './helpers/chat-server.js';
import { runFixture, startFixture, weftOptions } from './helpers/run-fixture.js';

// Every exit path is run twice, without and with weft: the process must end the same way, and with weft the
// spans that had ended must have reached the receiver (except where the platform gives no chance to send).

let chat: ReliabilityChatServer;
let receiver: OtlpReceiver;

beforeAll(async () => {
  chat = await startReliabilityChatServer();
});
afterAll(async () => {
  await chat.close();
});
beforeEach(async () => {
  await receiver?.close();
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver?.close());

function env(mode: string, withWeft: boolean): Record<string, string> {
  return {
    CHAT_URL: chat.baseURL,
    EXIT_MODE: mode,
    ...(withWeft ? weftOptions({ baseUrl: receiver.url, project: 'reliability/exit' }) : {}),
  };
}

async function ending(mode: string, withWeft: boolean) {
  const run = await runFixture('exit.cjs', env(mode, withWeft));
  return { code: run.code, signal: run.signal, stderr: run.stderr };
}

async function signalled(signal: NodeJS.Signals, withWeft: boolean) {
  const app = startFixture('exit.cjs', env('signal', withWeft));
  await app.waitForOutput('READY');
  app.child.kill(signal);
  const run = await app.exited;
  return { code: run.code, signal: run.signal };
}

/** The spans that had ended before the app's end: its own span and the chat span under it. */
function flushedSpans(): { app: number; chat: number } {
  const spans = receiver.spans();
  return {
    app: spans.filter((s) => s.name === 'app.plain').length,
    chat: spans.filter((s) => typeof s.attributes['gen_ai.request.model'] === 'string').length,
  };
}

describe('when the app ends', () => {
  it('by running out of work, it exits 0 as without weft, with its spans flushed', async () => {
    const without = await ending('normal', false);
    const withWeft = await ending('normal', true);
    expect(withWeft.code).toBe(without.code);
    expect(withWeft.code).toBe(0);
    expect(flushedSpans()).toEqual({ app: 1, chat: 1 });
  });

  it('with process.exitCode set, it exits with that code as without weft, with its spans flushed', async () => {
    const without = await ending('exit-code', false);
    const withWeft = await ending('exit-code', true);
    expect(without.code).toBe(3);
    expect(withWeft.code).toBe(3);
    expect(flushedSpans()).toEqual({ app: 1, chat: 1 });
  });

  it('by calling process.exit(), it exits with the code the app gave, with its spans sent', async () => {
    const without = await ending('process-exit', false);
    const withWeft = await ending('process-exit', true);
    expect(without.code).toBe(4);
    expect(withWeft.code).toBe(4);
    // `exit` listeners cannot wait for I/O: what was still queued went by weft's synchronous last send.
    expect(flushedSpans()).toEqual({ app: 1, chat: 1 });
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`on ${signal}, it ends by that signal as without weft, with its spans flushed`, async () => {
      const without = await signalled(signal, false);
      const withWeft = await signalled(signal, true);
      expect(without.signal).toBe(signal);
      expect(withWeft).toEqual(without);
      expect(flushedSpans()).toEqual({ app: 1, chat: 1 });
    });
  }

  it('by an uncaught exception, it exits 1 and prints the error as without weft, with its spans flushed', async () => {
    const without = await ending('uncaught', false);
    const withWeft = await ending('uncaught', true);
    expect(without.code).toBe(1);
    expect(withWeft.code).toBe(1);
    expect(withWeft.stderr).toContain('the app failed on its own');
    expect(flushedSpans()).toEqual({ app: 1, chat: 1 });
  });

  it('by an unhandled rejection, it exits 1 and prints the error as without weft, with its spans flushed', async () => {
    const without = await ending('rejection', false);
    const withWeft = await ending('rejection', true);
    expect(without.code).toBe(1);
    expect(withWeft.code).toBe(1);
    expect(withWeft.stderr).toContain('the app rejected on its own');
    expect(flushedSpans()).toEqual({ app: 1, chat: 1 });
  });
});

describe("when an app that watches crashes with its own uncaughtExceptionMonitor crashes", () => {
  async function crashing(mode: string, withWeft: boolean) {
    const run = await runFixture('exit.cjs', { ...env(mode, withWeft), APP_MONITOR: '1' });
    return { code: run.code, monitored: run.stdout.split('\n').filter((line) => line.startsWith('MONITOR ')), header: run.stderr.split('\n')[0] };
  }

  for (const [mode, origin, message] of [
    ['uncaught', 'uncaughtException', 'the app failed on its own'],
    ['rejection', 'unhandledRejection', 'the app rejected on its own'],
  ] as const) {
    it(`by an ${origin}, its monitor hears of it once, and Node's report points at the app, as without weft`, async () => {
      const without = await crashing(mode, false);
      const withWeft = await crashing(mode, true);
      expect(without.monitored).toEqual([`MONITOR ${origin} ${message}`]);
      expect(withWeft.monitored).toEqual(without.monitored);
      // The first line of Node's report is where the app threw (endByExitMode in its common.cjs), line and column.
      expect(without.header).toMatch(/common\.cjs:\d+$/);
      expect(withWeft.header).toBe(without.header);
      expect(withWeft.code).toBe(1);
      expect(flushedSpans()).toEqual({ app: 1, chat: 1 });
    });
  }
});

describe('when an ES-module app ends, started with --import weft/register or without weft', () => {
  function esmEnv(mode: string): Record<string, string> {
    return { CHAT_URL: chat.baseURL, EXIT_MODE: mode, WEFT_BASE_URL: receiver.url, WEFT_PROJECT: 'reliability/exit-esm' };
  }
  const loader = (withWeft: boolean) => (withWeft ? ['--import', 'weft/register'] : []);

  async function esmEnding(mode: string, withWeft: boolean) {
    const run = await runFixture('exit-esm.mjs', esmEnv(mode), loader(withWeft));
    return { code: run.code, signal: run.signal, stderr: run.stderr };
  }

  async function esmSignalled(signal: NodeJS.Signals, withWeft: boolean) {
    const app = startFixture('exit-esm.mjs', esmEnv('signal'), loader(withWeft));
    await app.waitForOutput('READY');
    app.child.kill(signal);
    const run = await app.exited;
    return { code: run.code, signal: run.signal };
  }

  for (const [mode, how, code] of [
    ['normal', 'by running out of work', 0],
    ['exit-code', 'with process.exitCode set', 3],
    ['process-exit', 'by calling process.exit()', 4],
  ] as const) {
    it(`${how}, it exits ${code} as without weft, with its spans flushed`, async () => {
      const without = await esmEnding(mode, false);
      const withWeft = await esmEnding(mode, true);
      expect(without.code).toBe(code);
      expect(withWeft.code, withWeft.stderr).toBe(code);
      expect(flushedSpans()).toEqual({ app: 1, chat: 1 });
    });
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`on ${signal}, it ends by that signal as without weft, with its spans flushed`, async () => {
      const without = await esmSignalled(signal, false);
      const withWeft = await esmSignalled(signal, true);
      expect(without.signal).toBe(signal);
      expect(withWeft).toEqual(without);
      expect(flushedSpans()).toEqual({ app: 1, chat: 1 });
    });
  }

  for (const [mode, message] of [
    ['uncaught', 'the app failed on its own'],
    ['rejection', 'the app rejected on its own'],
  ] as const) {
    it(`by an ${mode === 'uncaught' ? 'uncaught exception' : 'unhandled rejection'}, it exits 1 and prints the error as without weft, with its spans flushed`, async () => {
      const without = await esmEnding(mode, false);
      const withWeft = await esmEnding(mode, true);
      expect(without.code).toBe(1);
      expect(withWeft.code).toBe(1);
      // Node's report starts where the app threw (endByExitMode in common.cjs), line and column, then the source line.
      expect(withWeft.stderr.split('\n').slice(0, 2)).toEqual(without.stderr.split('\n').slice(0, 2));
      expect(withWeft.stderr).toContain(message);
      expect(flushedSpans()).toEqual({ app: 1, chat: 1 });
    });
  }
});
