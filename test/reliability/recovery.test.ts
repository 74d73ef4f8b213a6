import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtlpReceiver, type ReceiverReply, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { appEnv, CALLS, reportOf, runStepped, type Stats, theAppIsUnharmed, uniqueSpanIds, useChatServer } from './helpers/backend-app.js';
import { type FixtureRun, runFixture } from './helpers/run-fixture.js';
import { type SwitchableBackend, startSwitchableBackend } from './helpers/switchable-backend.js';

// Trace backends that fail for a while, then recover: the exporter keeps the spans of failed exports (bounded) and
// sends them again, so once the backend is back no span is lost (README, "Nothing lost").

const chat = useChatServer();
const SPANS_PER_PHASE = 2 * 3 * CALLS; // an app span and a chat span per call

/** The counters the app printed once the n-th phase was over and its spans flushed. */
function afterPhase(run: FixtureRun, n: number): Stats {
  const found = run.reports.find((r) => r.phase === 'phase-done' && r.n === n) as { stats: Stats } | undefined;
  if (!found) throw new Error(`the app printed no report after phase ${n}; exit ${run.code}, stderr:\n${run.stderr}`);
  return found.stats;
}

/** Every span delivered exactly once in the end, none dropped. */
function expectNothingLost(run: FixtureRun, receiver: OtlpReceiver, phases: number): void {
  const { stats } = reportOf(run, 'end');
  expect(stats!.spansEnded).toBe(phases * SPANS_PER_PHASE);
  expect(uniqueSpanIds(receiver)).toBe(stats!.spansEnded);
  expect(stats!.spansExported).toBe(stats!.spansEnded);
  expect(stats!.droppedSpans).toBe(0);
}

describe('with a trace backend answering 500, 503 and 502 between successes', () => {
  let run: FixtureRun;
  let receiver: OtlpReceiver;
  // Failures of several kinds, then a recovery, then one more failure, then good for good.
  const script: ReceiverReply[] = [{ status: 500 }, { status: 503 }, { status: 200 }, { status: 502 }, { status: 500 }];
  beforeAll(async () => {
    receiver = await startOtlpReceiver({ reply: (_req, index) => script[index] ?? { status: 200 } });
    run = await runFixture('backend.cjs', appEnv(chat(), { SHUTDOWN: '1', PHASES: '4' }, { baseUrl: receiver.url }));
  });
  afterAll(() => receiver.close());
  theAppIsUnharmed(chat, () => run, '4');
  it('loses no span once the backend has recovered', () => {
    expect(receiver.requests.some((r, i) => i < 5 && r.spans.length > 0)).toBe(true);
    expectNothingLost(run, receiver, 4);
  });
});

describe('with a trace backend whose port stops listening, comes back up, stops again and comes back', () => {
  let run: FixtureRun;
  let backend: SwitchableBackend;
  beforeAll(async () => {
    backend = await startSwitchableBackend('down');
    const env = appEnv(chat(), { SHUTDOWN: '1' }, { baseUrl: backend.url, batch: { exportTimeoutMillis: 1000 } });
    run = await runStepped(env, [() => backend.up(), () => backend.down(), () => backend.up()]);
  });
  afterAll(() => backend.close());
  theAppIsUnharmed(chat, () => run, '4');
  it('fails to export while the connection is refused, keeping the spans', () => {
    expect(afterPhase(run, 0)).toMatchObject({ spansExported: 0, spansDropped: 0, spansEnded: SPANS_PER_PHASE });
    expect(afterPhase(run, 0).exportFailures).toBeGreaterThan(0);
  });
  it('delivers the kept spans with the new ones as soon as the port listens again', () => {
    expect(afterPhase(run, 1)).toMatchObject({ spansExported: 2 * SPANS_PER_PHASE, spansDropped: 0 });
  });
  it('keeps the spans again while the connections are cut and refused a second time', () => {
    expect(afterPhase(run, 2).exportFailures).toBeGreaterThan(afterPhase(run, 1).exportFailures);
    expect(afterPhase(run, 2)).toMatchObject({ spansExported: 2 * SPANS_PER_PHASE, spansDropped: 0 });
  });
  it('loses no span once the backend is back', () => {
    expectNothingLost(run, backend.receiver, 4);
  });
});

describe('with a trace backend that hangs, then recovers', () => {
  let run: FixtureRun;
  let backend: SwitchableBackend;
  beforeAll(async () => {
    backend = await startSwitchableBackend('hang');
    const env = appEnv(chat(), { SHUTDOWN: '1' }, { baseUrl: backend.url, batch: { exportTimeoutMillis: 1000 } });
    run = await runStepped(env, [() => backend.up()]);
  });
  afterAll(() => backend.close());
  theAppIsUnharmed(chat, () => run, '2');
  it('gives up on the hanging export at its time limit, keeping the spans', () => {
    expect(afterPhase(run, 0)).toMatchObject({ spansExported: 0, spansDropped: 0, spansEnded: SPANS_PER_PHASE });
    expect(afterPhase(run, 0).exportFailures).toBeGreaterThan(0);
  });
  it('loses no span once the backend answers again', () => {
    expectNothingLost(run, backend.receiver, 2);
  });
});

describe('with a trace backend answering 429 with a short Retry-After before it accepts', () => {
  let run: FixtureRun;
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver({
      reply: (_req, index) => (index < 2 ? { status: 429, headers: { 'retry-after': '1' }, body: '{}' } : { status: 200 }),
    });
    run = await runFixture('backend.cjs', appEnv(chat(), { SHUTDOWN: '1' }, { baseUrl: receiver.url }));
  });
  afterAll(() => receiver.close());
  theAppIsUnharmed(chat, () => run);
  it('delivers every span once the backend stops throttling, and drops none', () => {
    expect(receiver.requests.filter((r) => r.spans.length > 0).length).toBeGreaterThan(2);
    expectNothingLost(run, receiver, 1);
  });
});

describe('with a trace backend answering 429 with a Retry-After longer than an export may wait', () => {
  const RETRY_AFTER_S = 2;
  let run: FixtureRun;
  let receiver: OtlpReceiver;
  const arrivedAt: number[] = [];
  beforeAll(async () => {
    receiver = await startOtlpReceiver({
      reply: (_req, index) => {
        arrivedAt.push(Date.now());
        return index === 0 ? { status: 429, headers: { 'retry-after': String(RETRY_AFTER_S) }, body: '{}' } : { status: 200 };
      },
    });
    // Exports only when the app flushes (the batch timer is out of the way), so the requests come in a known order:
    // phase 0's flush is refused; phase 1's flush falls within the wait; the last phase starts after the wait.
    const options = { baseUrl: receiver.url, batch: { exportTimeoutMillis: 1000, scheduledDelayMillis: 60_000 } };
    const pause = String(RETRY_AFTER_S * 1000 + 500);
    run = await runFixture('backend.cjs', appEnv(chat(), { SHUTDOWN: '1', PHASES: '3', PAUSE_BEFORE_LAST_PHASE_MS: pause }, options));
  });
  afterAll(() => receiver.close());
  theAppIsUnharmed(chat, () => run, '3');
  it('sends nothing more until the wait it asked for is over, not even for a flush', () => {
    expect(receiver.requests[0]!.spans).toHaveLength(SPANS_PER_PHASE);
    expect(arrivedAt.length).toBeGreaterThan(1);
    // A lower bound only: the spans cannot come back sooner than asked, however slow the machine.
    for (const later of arrivedAt.slice(1)) expect(later - arrivedAt[0]!).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000);
  });
  it('then delivers every span, the refused ones included, and drops none', () => {
    expectNothingLost(run, receiver, 3);
  });
});
