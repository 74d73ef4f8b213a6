import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countersAtExit, type RunningChild, startNode } from '../helpers/child.js';
import { deadOrigin } from '../helpers/dead-origin.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// These run the built package in child processes, as an app would.
const fixture = 'test/register/fixtures/app-ends-itself.mjs';

/**
 * How long the app may take to end once it stopped its own work: far more than its 500 ms flush timeout, far less
 * than the export timeout (60 s) or the exporter's own retries against a refused port (about 8 s).
 */
const DEADLINE_MS = 5000;

/** The child's result, or a failure saying that weft held the process past its flush timeout. */
async function endsWithin(app: RunningChild, what: string) {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      app.child.kill('SIGKILL');
      reject(new Error(`the app was still running ${DEADLINE_MS} ms after ${what}: weft held it past its 500 ms flush timeout`));
    }, DEADLINE_MS);
  });
  try {
    return await Promise.race([app.exited, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe.each([
  // weft gives up on a service that does not answer; one that is not there fails the last send at once.
  ['hangs', async () => startOtlpReceiver({ reply: () => 'hang' }), 'gave up sending spans'],
  ['refuses connections', async () => ({ url: await deadOrigin(), close: async () => {} }), 'as the process ended (ECONNREFUSED)'],
])('an app that handles its own ending, while the trace service %s', (_, startService, said) => {
  let service: Pick<OtlpReceiver, 'url' | 'close'>;
  beforeEach(async () => {
    service = await startService();
  });
  afterEach(() => service.close());

  const start = (ending: string) => startNode([fixture], { WEFT_BASE_URL: service.url, WEFT_PROJECT: 'acme/ends-itself', ENDING: ending });

  it('ends once it stopped its work after SIGTERM, with the unsent span counted as dropped', async () => {
    const app = start('signal');
    await app.waitForOutput('ready');
    app.child.kill('SIGTERM');
    const result = await endsWithin(app, 'SIGTERM');
    expect(result.stdout).toContain('app: SIGTERM, stopping its work');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(said);
    expect(countersAtExit(result.stdout)).toMatchObject({ spansEnded: 1, spansExported: 0, spansDropped: 1 });
  }, 20_000);

  it('ends once it stopped its work after catching an uncaught exception itself', async () => {
    const app = start('uncaught');
    await app.waitForOutput('app: caught "the app failed"');
    const result = await endsWithin(app, 'the uncaught exception');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(said);
    expect(countersAtExit(result.stdout)).toMatchObject({ spansEnded: 1, spansExported: 0, spansDropped: 1 });
  }, 20_000);
});
