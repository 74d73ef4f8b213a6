import { afterEach, beforeEach, expect, it } from 'vitest';
import { startNode } from '../helpers/child.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// An app's own one-shot handlers: Node removes a `once` listener before calling it, so weft must ask whether the
// app handles an event before the app's listeners run, or it ends a process the app meant to keep, or cuts off its
// work. These run the built package in child processes, as an app would; the trace service hangs, so that weft's
// flush gives up (after 500 ms) while the app's work (800 ms) still runs.
const fixture = 'test/register/fixtures/once-handlers.mjs';

let service: OtlpReceiver;
beforeEach(async () => {
  service = await startOtlpReceiver({ reply: () => 'hang' });
});
afterEach(() => service.close());

async function run(handler: string, withWeft: boolean, signal?: NodeJS.Signals) {
  const app = startNode([fixture], { WEFT_BASE_URL: service.url, WEFT_PROJECT: 'acme/once', HANDLER: handler, WITH_WEFT: withWeft ? '1' : '0' });
  await app.waitForOutput('ready');
  if (signal) app.child.kill(signal);
  return app.exited;
}

for (const [handler, signal, done] of [
  ['signal', 'SIGTERM', 'app: graceful stop done'],
  ['uncaught', undefined, 'app: recovery done'],
  ['before-exit', undefined, 'app: last upload done'],
] as const) {
  it(`lets a ${handler} handler added with process.once finish its work, and the process end as without weft`, async () => {
    const without = await run(handler, false, signal);
    const withWeft = await run(handler, true, signal);
    expect(without.stdout).toContain(done);
    expect(withWeft.stdout, withWeft.stderr).toContain(done);
    expect({ code: withWeft.code, signal: withWeft.signal }).toEqual({ code: without.code, signal: without.signal });
  }, 20_000);
}
