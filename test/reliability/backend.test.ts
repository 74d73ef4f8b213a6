import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtlpReceiver, type ReceiverReply, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { type ReliabilityChatServer, startReliabilityChatServer } from './helpers/chat-server.js';
import { type FixtureRun, runFixture, weftOptions } from './helpers/run-fixture.js';
import { deadOrigin } from '../helpers/dead-origin.js';

// Each scenario runs one app process against a misbehaving trace backend; the tests read that one run.
// Calls per kind and phase; each phase makes 2×CALLS sequential calls and CALLS parallel ones.
const CALLS = 5;

interface Stats {
  spansEnded: number;
  spansExported: number;
  spansDropped: number;
  spansQueued: number;
  droppedSpans: number;
}

interface Report {
  phase: string;
  results?: unknown[];
  stats: Stats | null;
  seen: { unhandledRejections: string[] };
}

function reportOf(run: FixtureRun, phase: string): Report {
  const found = run.reports.find((r) => r.phase === phase) as Report | undefined;
  if (!found) throw new Error(`the app printed no "${phase}" report; exit ${run.code}, stderr:\n${run.stderr}`);
  return found;
}

function uniqueSpanIds(receiver: OtlpReceiver): number {
  return new Set(receiver.spans().map((s) => s.spanId)).size;
}

let chat: ReliabilityChatServer;
const baselines = new Map<string, FixtureRun>();

/** The same app without weft, with the same number of phases: what the results must be. */
async function baseline(phases: string): Promise<FixtureRun> {
  let run = baselines.get(phases);
  if (!run) {
    run = await runFixture('backend.cjs', { CHAT_URL: chat.baseURL, CALLS: String(CALLS), PHASES: phases });
    baselines.set(phases, run);
  }
  return run;
}

beforeAll(async () => {
  chat = await startReliabilityChatServer();
});
afterAll(async () => {
  await chat.close();
});

function appEnv(extra: Record<string, string>, options: Record<string, unknown>): Record<string, string> {
  return { CHAT_URL: chat.baseURL, CALLS: String(CALLS), ...weftOptions({ project: 'reliability/backend', ...options }), ...extra };
}

/** The assertions every misbehaving backend must pass, on one run. */
function theAppIsUnharmed(run: () => FixtureRun, phases = '1'): void {
  it('lets the app exit normally with code 0', () => {
    expect(run().stderr).not.toMatch(/Unhandled|uncaught/i);
    expect(run().code).toBe(0);
  });
  it('returns the app exactly the results it gets without weft', async () => {
    expect(reportOf(run(), 'calls-done').results).toEqual(reportOf(await baseline(phases), 'calls-done').results);
  });
  it('causes no unhandled rejection', () => {
    expect(reportOf(run(), 'calls-done').seen.unhandledRejections).toEqual([]);
    expect(reportOf(run(), 'end').seen.unhandledRejections).toEqual([]);
  });
}

describe('with the trace backend down (connection refused)', () => {
  let run: FixtureRun;
  beforeAll(async () => {
    run = await runFixture('backend.cjs', appEnv({ SHUTDOWN: '1' }, { baseUrl: await deadOrigin() }));
  });
  theAppIsUnharmed(() => run);
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
    run = await runFixture('backend.cjs', appEnv({}, { baseUrl: receiver.url, exitFlushTimeoutMillis: 1000 }));
  });
  afterAll(() => receiver.close());
  theAppIsUnharmed(() => run);
  it('completed every app call while the export was hanging', () => {
    expect(receiver.requests.length).toBeGreaterThan(0);
    expect(reportOf(run, 'calls-done').results).toHaveLength(3 * CALLS);
  });
});

describe('with a trace backend answering 500', () => {
  let run: FixtureRun;
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver({ reply: () => ({ status: 500, body: '{"error":"internal"}' }) });
    run = await runFixture('backend.cjs', appEnv({ SHUTDOWN: '1' }, { baseUrl: receiver.url }));
  });
  afterAll(() => receiver.close());
  theAppIsUnharmed(() => run);
  it('counts the spans the backend never took as dropped', () => {
    const { stats } = reportOf(run, 'end');
    expect(receiver.requests.length).toBeGreaterThan(0);
    expect(stats!.spansExported).toBe(0);
    expect(stats!.droppedSpans).toBe(stats!.spansEnded);
  });
});

describe('with a trace backend answering 429 with Retry-After before it accepts', () => {
  let run: FixtureRun;
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver({
      reply: (_req, index) => (index < 2 ? { status: 429, headers: { 'retry-after': '1' }, body: '{}' } : { status: 200 }),
    });
    run = await runFixture('backend.cjs', appEnv({ SHUTDOWN: '1' }, { baseUrl: receiver.url }));
  });
  afterAll(() => receiver.close());
  theAppIsUnharmed(() => run);
  it('delivers every span once the backend stops throttling, and drops none', () => {
    const { stats } = reportOf(run, 'end');
    expect(receiver.requests.filter((r) => r.spans.length > 0).length).toBeGreaterThan(2);
    expect(uniqueSpanIds(receiver)).toBe(stats!.spansEnded);
    expect(stats!.droppedSpans).toBe(0);
  });
});

describe('with a flapping trace backend', () => {
  let run: FixtureRun;
  let receiver: OtlpReceiver;
  // Failures of several kinds, then a recovery, then one more failure, then good for good.
  const script: ReceiverReply[] = [{ status: 500 }, { status: 503 }, { status: 200 }, { status: 502 }, { status: 500 }];
  beforeAll(async () => {
    receiver = await startOtlpReceiver({ reply: (_req, index) => script[index] ?? { status: 200 } });
    run = await runFixture('backend.cjs', appEnv({ SHUTDOWN: '1', PHASES: '4' }, { baseUrl: receiver.url }));
  });
  afterAll(() => receiver.close());
  theAppIsUnharmed(() => run, '4');
  it('loses no span once the backend has recovered', () => {
    const { stats } = reportOf(run, 'end');
    expect(receiver.requests.some((r, i) => i < 5 && r.spans.length > 0)).toBe(true);
    expect(stats!.spansEnded).toBeGreaterThanOrEqual(4 * 3 * CALLS);
    expect(uniqueSpanIds(receiver)).toBe(stats!.spansEnded);
    expect(stats!.droppedSpans).toBe(0);
  });
});
