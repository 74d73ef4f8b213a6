import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OtlpReceiver } from '../../helpers/otlp-receiver.js';
import { type ReliabilityChatServer, startReliabilityChatServer } from './chat-server.js';
import { type FixtureRun, reportsOf, runFixture, startFixture, weftOptions } from './run-fixture.js';

// The app of test/fixtures/reliability/backend.cjs, run against misbehaving trace backends, and the assertions
// every such run must pass. Each phase makes 2×CALLS sequential calls and CALLS parallel ones.

export const CALLS = 5;

export interface Stats {
  spansEnded: number;
  spansExported: number;
  spansDropped: number;
  spansQueued: number;
  exportFailures: number;
  droppedSpans: number;
}

export interface Report {
  phase: string;
  results?: unknown[];
  stats: Stats | null;
  seen: { unhandledRejections: string[] };
}

export function reportOf(run: FixtureRun, phase: string): Report {
  const found = run.reports.find((r) => r.phase === phase) as Report | undefined;
  if (!found) throw new Error(`the app printed no "${phase}" report; exit ${run.code}, stderr:\n${run.stderr}`);
  return found;
}

/** The handle's counters the app printed from its own `exit` listener, after weft's final count. */
export function statsAtExit(run: FixtureRun): Stats {
  return reportOf(run, 'exit').stats!;
}

export function uniqueSpanIds(receiver: OtlpReceiver): number {
  return new Set(receiver.spans().map((s) => s.spanId)).size;
}

/** Starts the loopback chat server for the file's tests; returns a getter for it. */
export function useChatServer(): () => ReliabilityChatServer {
  let chat: ReliabilityChatServer | undefined;
  beforeAll(async () => {
    chat = await startReliabilityChatServer();
  });
  afterAll(() => chat?.close());
  return () => chat!;
}

/** The app's environment: weft registered with `options`, plus `extra` variables of the fixture. */
export function appEnv(chat: ReliabilityChatServer, extra: Record<string, string>, options: Record<string, unknown>): Record<string, string> {
  return { CHAT_URL: chat.baseURL, CALLS: String(CALLS), ...weftOptions({ project: 'reliability/backend', ...options }), ...extra };
}

const baselines = new Map<string, Promise<FixtureRun>>();

/** The same app without weft, with the same number of phases: what the results must be. */
function baseline(chat: ReliabilityChatServer, phases: string): Promise<FixtureRun> {
  let run = baselines.get(phases);
  if (!run) {
    run = runFixture('backend.cjs', { CHAT_URL: chat.baseURL, CALLS: String(CALLS), PHASES: phases });
    baselines.set(phases, run);
  }
  return run;
}

/** The assertions every misbehaving backend must pass, on one run. */
export function theAppIsUnharmed(chat: () => ReliabilityChatServer, run: () => FixtureRun, phases = '1'): void {
  it('lets the app exit normally with code 0', () => {
    expect(run().stderr).not.toMatch(/Unhandled|uncaught/i);
    expect(run().code).toBe(0);
  });
  it('returns the app exactly the results it gets without weft', async () => {
    expect(reportOf(run(), 'calls-done').results).toEqual(reportOf(await baseline(chat(), phases), 'calls-done').results);
  });
  it('causes no unhandled rejection', () => {
    expect(reportOf(run(), 'calls-done').seen.unhandledRejections).toEqual([]);
    expect(reportOf(run(), 'end').seen.unhandledRejections).toEqual([]);
  });
}

/**
 * Runs the app in phases, with `changes.length + 1` phases: after each phase but the last (its spans flushed), the
 * app waits while the next change is made to the backend, then goes on.
 */
export async function runStepped(env: Record<string, string>, changes: Array<() => unknown>): Promise<FixtureRun> {
  const app = startFixture('backend.cjs', { ...env, STEPPED: '1', PHASES: String(changes.length + 1) }, [], { stdin: true });
  for (const [n, change] of changes.entries()) {
    await app.waitForOutput(`"phase":"phase-done","n":${n},`);
    await change();
    app.child.stdin?.write('next\n');
  }
  app.child.stdin?.end();
  const result = await app.exited;
  return { ...result, reports: reportsOf(result.stdout) };
}
