import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runNode } from '../helpers/child.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// These run the built package in child processes, as an app would.
const fixture = (name: string) => `test/register/fixtures/${name}`;

describe('the flush at the end of the process', () => {
  let receiver: OtlpReceiver;
  let env: Record<string, string>;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
    env = { WEFT_BASE_URL: receiver.url, WEFT_PROJECT: 'acme/exit-flush' };
  });
  afterEach(() => receiver.close());

  it("ends, with its spans sent, when the app's beforeExit handler ends a span every time it runs", async () => {
    const result = await runNode([fixture('before-exit-span.mjs')], env);
    expect(result.code, result.stderr).toBe(0);
    const names = receiver.spans().map((s) => s.name);
    expect(names).toContain('main');
    expect(names).toContain('at-before-exit');
  }, 20_000);

  it('keeps the first of two uncaught errors as the one printed and the exit code', async () => {
    const result = await runNode([fixture('two-errors.mjs')], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the first failure');
    expect(result.stderr).not.toContain('the second failure');
    expect(receiver.spans().map((s) => s.name)).toEqual(['before-crash']);
  });
});

describe('a trace service that never answers at exit', () => {
  let hanging: OtlpReceiver;
  beforeEach(async () => {
    hanging = await startOtlpReceiver({ reply: () => 'hang' });
  });
  afterEach(() => hanging.close());

  it("does not cut off the app's own beforeExit work when weft gives up waiting", async () => {
    const result = await runNode([fixture('slow-before-exit.mjs')], { WEFT_BASE_URL: hanging.url, WEFT_PROJECT: 'acme/hang' });
    expect(result.stdout).toContain('app cleanup done');
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('gave up sending spans');
  }, 20_000);
});

describe('an app that lives on after weft gave up at exit', () => {
  let service: OtlpReceiver;
  beforeEach(async () => {
    // The export at exit hangs; the next one is refused for a passing reason; then the service is back.
    service = await startOtlpReceiver({ reply: (_, index) => (index === 0 ? 'hang' : index === 1 ? { status: 503 } : { status: 200 }) });
  });
  afterEach(() => service.close());

  it('still retries its later exports: letting go concerned only the requests open at that moment', async () => {
    const result = await runNode([fixture('lives-on-after-give-up.mjs')], { WEFT_BASE_URL: service.url, WEFT_PROJECT: 'acme/lives-on' });
    expect(result.stderr).toContain('gave up sending spans');
    expect(result.stdout).toContain('after flush {"spansExported":1}');
    expect(service.spans().map((s) => s.name)).toContain('later');
  }, 20_000);
});
