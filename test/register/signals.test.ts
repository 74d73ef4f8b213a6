import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startNode } from '../helpers/child.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// These run the built package in child processes, as an app would.
const fixture = (name: string) => `test/register/fixtures/${name}`;

describe('a signal when a library such as signal-exit listens too', () => {
  let receiver: OtlpReceiver;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(() => receiver.close());

  async function terminate(env: Record<string, string>, signal: NodeJS.Signals = 'SIGTERM') {
    const app = startNode([fixture('signal-exit-app.mjs')], { WEFT_BASE_URL: receiver.url, WEFT_PROJECT: 'acme/signals', ...env });
    await app.waitForOutput('ready');
    app.child.kill(signal);
    return app.exited;
  }

  for (const order of ['signal-exit-first', 'weft-first']) {
    it(`ends the process by the signal, after its exit handlers, as without weft (${order})`, async () => {
      const without = await terminate({ WITH_WEFT: '0', FIXTURE_ORDER: order });
      const withWeft = await terminate({ FIXTURE_ORDER: order });
      expect(without.signal).toBe('SIGTERM');
      expect(withWeft.signal).toBe(without.signal);
      expect(withWeft.stdout).toContain('exit handlers ran for SIGTERM');
      expect(receiver.spans().map((s) => s.name)).toEqual(['before-signal']);
    }, 20_000);
  }

  it('ends the process by SIGINT too', async () => {
    const result = await terminate({}, 'SIGINT');
    expect(result.signal).toBe('SIGINT');
    expect(receiver.spans()).toHaveLength(1);
  }, 20_000);
});

describe('a signal while the service asks weft to hold the spans', () => {
  let throttling: OtlpReceiver;
  beforeEach(async () => {
    throttling = await startOtlpReceiver({ reply: () => ({ status: 429, headers: { 'retry-after': '600' } }) });
  });
  afterEach(() => throttling.close());

  it('counts the held spans as dropped before the exit handlers run, and says how many', async () => {
    const app = startNode([fixture('signal-exit-app.mjs')], { WEFT_BASE_URL: throttling.url, WEFT_PROJECT: 'acme/signals' });
    await app.waitForOutput('ready');
    app.child.kill('SIGTERM');
    const result = await app.exited;
    expect(result.signal).toBe('SIGTERM');
    expect(result.stderr).toContain('1 span(s) waiting for a retry could not be sent');
    expect(result.stdout).toContain('dropped 1');
  }, 20_000);
});
