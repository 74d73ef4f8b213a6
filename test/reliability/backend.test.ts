import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadOrigin } from '../helpers/dead-origin.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { appEnv, CALLS, reportOf, statsAtExit, theAppIsUnharmed, useChatServer } from './helpers/backend-app.js';
import { type FixtureRun, runFixture } from './helpers/run-fixture.js';

// Each scenario runs one app process against a trace backend that fails for good; the tests read that one run.
// Backends that fail and then recover: recovery.test.ts; the same under load: load.test.ts.

const chat = useChatServer();

describe('with the trace backend down (connection refused)', () => {
  let run: FixtureRun;
  beforeAll(async () => {
    run = await runFixture('backend.cjs', appEnv(chat(), { SHUTDOWN: '1' }, { baseUrl: await deadOrigin() }));
  });
  theAppIsUnharmed(chat, () => run);
  it('counts every span it could not deliver as dropped', () => {
    const { stats } = reportOf(run, 'end');
    expect(stats!.spansEnded).toBeGreaterThanOrEqual(3 * CALLS);
    expect(stats!.spansExported).toBe(0);
    expect(stats!.droppedSpans).toBe(stats!.spansEnded);
  });
});

describe('with a trace backend that accepts connections and never answers', () => {
  let run: FixtureRun;
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver({ reply: () => 'hang' });
    // No shutdown: the process must end by itself, the exit flush giving up after its timeout.
    run = await runFixture('backend.cjs', appEnv(chat(), {}, { baseUrl: receiver.url, exitFlushTimeoutMillis: 1000 }));
  });
  afterAll(() => receiver.close());
  theAppIsUnharmed(chat, () => run);
  it('completed every app call while the export was hanging', () => {
    expect(receiver.requests.length).toBeGreaterThan(0);
    expect(reportOf(run, 'calls-done').results).toHaveLength(3 * CALLS);
  });
  it('has counted every span it could not send as dropped by the time the process ends', () => {
    const stats = statsAtExit(run);
    expect(stats.spansEnded).toBeGreaterThanOrEqual(3 * CALLS);
    expect(stats.spansExported).toBe(0);
    expect(stats.spansQueued).toBe(0);
    expect(stats.droppedSpans).toBe(stats.spansEnded);
  });
});

describe('with a trace backend answering 500', () => {
  let run: FixtureRun;
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver({ reply: () => ({ status: 500, body: '{"error":"internal"}' }) });
    run = await runFixture('backend.cjs', appEnv(chat(), { SHUTDOWN: '1' }, { baseUrl: receiver.url }));
  });
  afterAll(() => receiver.close());
  theAppIsUnharmed(chat, () => run);
  it('counts the spans the backend never took as dropped', () => {
    const { stats } = reportOf(run, 'end');
    expect(receiver.requests.length).toBeGreaterThan(0);
    expect(stats!.spansExported).toBe(0);
    expect(stats!.droppedSpans).toBe(stats!.spansEnded);
  });
});
