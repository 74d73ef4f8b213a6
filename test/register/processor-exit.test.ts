import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatusCodeValue } from '../../src/otlp/index.js';
import { type ChildResult, runNode, startNode } from '../helpers/child.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// weftSpanProcessor() on an app's own provider (NodeSDK's, here a BasicTracerProvider built by hand) that the app
// never shuts down: the spans still reach the trace service however the process ends, and it ends as it would have
// without weft. These run the built package in child processes, as an app would.
const FIXTURE = 'test/register/fixtures/processor-exit.mjs';

/** The process listeners the fixture saw added by creating its processors. */
function listeners(result: ChildResult): Record<string, number> {
  const line = /listeners (.*)/.exec(result.stdout);
  if (!line) throw new Error(`the fixture printed no listeners:\n${result.stdout}`);
  return JSON.parse(line[1]!) as Record<string, number>;
}

const ONE_SET = { beforeExit: 1, exit: 1, SIGTERM: 1, SIGINT: 1, uncaughtExceptionMonitor: 1 };

describe("weftSpanProcessor() on the app's own provider, which the app does not shut down", () => {
  let receiver: OtlpReceiver;
  let env: Record<string, string>;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
    env = { WEFT_BASE_URL: receiver.url };
  });
  afterEach(() => receiver.close());

  /** The spans the receiver decoded, as name → the project of their resource. */
  const received = () => receiver.spans().map((span) => `${span.name} → ${span.resource['wandb.entity']}/${span.resource['wandb.project']}`);

  async function terminate(extra: Record<string, string>, signal: NodeJS.Signals = 'SIGTERM') {
    const app = startNode([FIXTURE], { ...env, ...extra });
    await app.waitForOutput('ready');
    app.child.kill(signal);
    return app.exited;
  }

  it('sends its spans when the event loop runs dry, and exits 0', async () => {
    const result = await runNode([FIXTURE], env);
    expect(result.code, result.stderr).toBe(0);
    expect(listeners(result)).toEqual(ONE_SET);
    expect(received()).toEqual(['span-1 → acme/own-exit']);
  });

  it('sends its spans at process.exit(), with the exit code the app gave', async () => {
    const result = await runNode([FIXTURE], { ...env, FIXTURE_END: 'exit' });
    expect(result.code, result.stderr).toBe(3);
    expect(received()).toEqual(['span-1 → acme/own-exit']);
  });

  it('sends its spans on SIGTERM when the app has no handler, and the process still ends by the signal', async () => {
    const result = await terminate({ FIXTURE_END: 'signal' });
    expect(result.signal).toBe('SIGTERM');
    expect(received()).toEqual(['span-1 → acme/own-exit']);
  });

  it('ends a call still running at SIGTERM as it stands, and sends it', async () => {
    const result = await terminate({ FIXTURE_END: 'signal', FIXTURE_OP: '1' });
    expect(result.signal).toBe('SIGTERM');
    const waiting = receiver.spans().find((span) => span.name === 'waiting');
    expect(waiting?.status).toEqual({ code: StatusCodeValue.ERROR, message: 'CallUnfinished: the process received SIGTERM before this call ended; recorded as it stood' });
    expect(received().sort()).toEqual(['span-1 → acme/own-exit', 'waiting → acme/own-exit']);
  });

  it('sends its spans on SIGINT too, ending by SIGINT', async () => {
    const result = await terminate({ FIXTURE_END: 'signal' }, 'SIGINT');
    expect(result.signal).toBe('SIGINT');
    expect(received()).toEqual(['span-1 → acme/own-exit']);
  });

  it("leaves SIGTERM to the app's handler that shuts the provider down and exits 0", async () => {
    const result = await terminate({ FIXTURE_END: 'own-handler' });
    expect(result.stdout).toContain('app shut down');
    expect(result.code, result.stderr).toBe(0);
    expect(received()).toEqual(['span-1 → acme/own-exit']);
  });

  it("ends a call still running when the app's SIGTERM handler shuts the provider down, and sends it", async () => {
    const result = await terminate({ FIXTURE_END: 'own-handler', FIXTURE_OP: '1' });
    expect(result.code, result.stderr).toBe(0);
    const waiting = receiver.spans().find((span) => span.name === 'waiting');
    expect(waiting?.status).toEqual({
      code: StatusCodeValue.ERROR,
      message: "CallUnfinished: weft's span processor was shut down before this call ended; recorded as it stood",
    });
    expect(received().sort()).toEqual(['span-1 → acme/own-exit', 'waiting → acme/own-exit']);
  });

  it("sends its spans when the app's SIGTERM handler exits without waiting for the shutdown it started", async () => {
    const result = await terminate({ FIXTURE_END: 'own-handler-no-wait' });
    expect(result.code, result.stderr).toBe(0);
    expect(received()).toEqual(['span-1 → acme/own-exit']);
  });

  it("sends its spans before an uncaught exception ends the process with Node's own report and exit code 1", async () => {
    const result = await runNode([FIXTURE], { ...env, FIXTURE_END: 'crash' });
    expect(result.code).toBe(1);
    // Node's header points at the app's throw, not at weft.
    expect(result.stderr).toMatch(/^file:\/\/.*processor-exit\.mjs:\d+\n\s*throw new Error\('the app crashed on purpose'\);/);
    expect(result.stderr).toContain('Error: the app crashed on purpose');
    expect(received()).toEqual(['span-1 → acme/own-exit']);
  });

  it('hooks nothing with flushOnExit: false, and sends nothing at process.exit()', async () => {
    const result = await runNode([FIXTURE], { ...env, FIXTURE_END: 'exit', FIXTURE_NO_EXIT_FLUSH: '1' });
    expect(result.code, result.stderr).toBe(3);
    expect(listeners(result)).toEqual({ beforeExit: 0, exit: 0, SIGTERM: 0, SIGINT: 0, uncaughtExceptionMonitor: 0 });
    expect(receiver.requests).toEqual([]);
  });

  it('are let go of, and their process listeners with them, when the app drops them without shutdown()', async () => {
    const result = await runNode(['--expose-gc', 'test/register/fixtures/processors-forgotten.mjs'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`while they live ${JSON.stringify(ONE_SET)} (100 processors)`);
    const NONE = { beforeExit: 0, exit: 0, SIGTERM: 0, SIGINT: 0, uncaughtExceptionMonitor: 0 };
    expect(result.stdout).toContain(`once collected ${JSON.stringify(NONE)}`);
  });

  describe('two processors, each on a provider of its own', () => {
    it('share one set of process listeners, and each sends its own spans when the event loop runs dry', async () => {
      const result = await runNode([FIXTURE], { ...env, FIXTURE_PROVIDERS: '2' });
      expect(result.code, result.stderr).toBe(0);
      expect(listeners(result)).toEqual(ONE_SET);
      expect(received().sort()).toEqual(['span-1 → acme/own-exit', 'span-2 → acme/own-exit-two']);
      expect(receiver.requests.map((request) => request.headers.project_id).sort()).toEqual(['acme/own-exit', 'acme/own-exit-two']);
    });

    it('each send their own spans on SIGTERM, and the process ends by the signal', async () => {
      const result = await terminate({ FIXTURE_END: 'signal', FIXTURE_PROVIDERS: '2' });
      expect(result.signal).toBe('SIGTERM');
      expect(received().sort()).toEqual(['span-1 → acme/own-exit', 'span-2 → acme/own-exit-two']);
    });

    it('at process.exit() with the service hanging, each sends within the one flush timeout: the first does not take it all', async () => {
      await receiver.close();
      receiver = await startOtlpReceiver({ reply: () => 'hang' });
      const result = await runNode([FIXTURE], { WEFT_BASE_URL: receiver.url, FIXTURE_END: 'exit', FIXTURE_PROVIDERS: '3', FIXTURE_FLUSH_TIMEOUT: '1500' });
      expect(result.code, result.stderr).toBe(3);
      // Each had its turn: the first did not wait out the whole timeout and leave the others none. (That the three
      // share one timeout rather than take one each is a matter of time, which tests do not assert.)
      expect(receiver.requests.map((request) => request.spans[0]?.name).sort()).toEqual(['span-1', 'span-2', 'span-3']);
      // With no diagnostic logger of the app's, weft says so as a process warning, printed before the process ends.
      expect(result.stderr).toMatch(/\[WEFT\] Warning: weft: could not send 1 span\(s\) to .* as the process ended/);
    });

    it('at process.exit() with two services hanging, says what was lost for each of them', async () => {
      await receiver.close();
      receiver = await startOtlpReceiver({ reply: () => 'hang' });
      const other = await startOtlpReceiver({ reply: () => 'hang' });
      try {
        const result = await runNode([FIXTURE], {
          WEFT_BASE_URL: receiver.url,
          FIXTURE_SECOND_BASE_URL: other.url,
          FIXTURE_END: 'exit',
          FIXTURE_PROVIDERS: '2',
          FIXTURE_FLUSH_TIMEOUT: '1000',
        });
        expect(result.code, result.stderr).toBe(3);
        for (const url of [receiver.url, other.url]) {
          expect(result.stderr).toContain(`weft: could not send 1 span(s) to ${url}/otel/v1/traces as the process ended`);
        }
      } finally {
        await other.close();
      }
    });

    it('each send their own spans at process.exit()', async () => {
      const result = await runNode([FIXTURE], { ...env, FIXTURE_END: 'exit', FIXTURE_PROVIDERS: '2' });
      expect(result.code, result.stderr).toBe(3);
      expect(received().sort()).toEqual(['span-1 → acme/own-exit', 'span-2 → acme/own-exit-two']);
    });
  });
});
