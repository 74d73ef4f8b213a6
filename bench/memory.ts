import { runChild } from './lib/child.js';
import { deadPort } from './lib/dead-port.js';
import { type LoopbackServer, listenOnLoopback } from './lib/loopback-server.js';
import { fmt } from './lib/stats.js';
import { printTable } from './lib/table.js';

/**
 * `weft` exports to a backend that refuses connections, the case the benchmark is about; `weft-backend-up` to one
 * that accepts everything, a control that shows what the same calls leave behind when nothing fails.
 */
export const MEMORY_CONFIGS = ['none', 'weft', 'weft-backend-up'] as const;
export type MemoryConfig = (typeof MEMORY_CONFIGS)[number];

/** weft's batch settings for the run; they set how many spans it may hold (`register({ batch })`). */
export interface MemoryBatch {
  maxQueueSize: number;
  maxRetrySpans: number;
  maxExportBatchSize: number;
  exportTimeoutMillis: number;
}

export interface MemoryOptions {
  calls: number;
  parallel: number;
  batch: MemoryBatch;
}

/** The register() handle's counters, plus what the child counted itself. */
interface ExportCounters {
  spansEnded: number;
  spansExported: number;
  spansDropped: number;
  exportFailures: number;
  spansQueued: number;
  /** Ended and neither exported nor dropped: queued, kept for a retry, or in an export request. */
  spansHeld: number;
  /** HTTP requests to the trace endpoint that started, whether or not they connected. */
  exportRequests: number;
}

interface Sample {
  calls: number;
  seconds: number;
  rssMB: number;
  heapUsedMB: number;
  stats: ExportCounters | null;
}

/** One child run, as written to the JSON file. */
export interface MemoryRun {
  config: MemoryConfig;
  ok: boolean;
  detail: string;
  samples: Sample[];
  peakRssMB: number;
}

/**
 * A trace backend that accepts every export and keeps nothing: the bench's OTLP sink would hold and decode
 * 100,000 spans, and the control run only needs weft's own count of what was accepted.
 */
function acceptingBackend(): Promise<LoopbackServer> {
  return listenOnLoopback((_req, res) => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
}

/** Every tenth of the calls, on a whole batch. */
function checkpointsFor(opts: MemoryOptions): number[] {
  return Array.from({ length: 10 }, (_, i) => Math.round((opts.calls * (i + 1)) / 10 / opts.parallel) * opts.parallel);
}

/** Runs the calls uninstrumented, with weft exporting to a dead backend, and with weft exporting to a live one. */
export async function benchMemory(opts: MemoryOptions, log: (s: string) => void): Promise<MemoryRun[]> {
  const dead = `http://127.0.0.1:${await deadPort()}`;
  const live = await acceptingBackend();
  const runs: MemoryRun[] = [];
  try {
    for (const config of MEMORY_CONFIGS) {
      const backend = config === 'weft-backend-up' ? live.origin : dead;
      const job = { config, calls: opts.calls, parallel: opts.parallel, checkpoints: checkpointsFor(opts), backend, batch: opts.batch };
      const outcome = await runChild<{ samples: Sample[]; peakRssMB: number }>('memory.cjs', job, { nodeArgs: ['--expose-gc'], timeoutMs: 240_000 });
      runs.push(
        outcome.ok
          ? { config, ok: true, detail: '', ...outcome.value }
          : { config, ok: false, detail: outcome.error, samples: [], peakRssMB: Number.NaN },
      );
      log(`  ${config}: ${outcome.ok ? 'done' : outcome.error}`);
    }
  } finally {
    await live.close();
  }
  return runs;
}

const LABEL: Record<MemoryConfig, string> = {
  none: 'uninstrumented',
  weft: 'weft, backend refusing connections',
  'weft-backend-up': 'weft, backend accepting (control)',
};

const int = (n: number) => n.toLocaleString('en-US');

/** The table's row for one checkpoint: RSS and heap of each run, and the spans each weft run held. */
function checkpointRow(runs: MemoryRun[], index: number, calls: number): string[] {
  return [
    int(calls),
    ...MEMORY_CONFIGS.flatMap((c) => {
      const s = runs.find((r) => r.config === c)?.samples[index];
      const memory = [fmt(s?.rssMB ?? Number.NaN, 1), fmt(s?.heapUsedMB ?? Number.NaN, 1)];
      return c === 'none' ? memory : [...memory, s?.stats ? int(s.stats.spansHeld) : '-'];
    }),
  ];
}

/** What weft's handle and the child counted by the end of one run, on two lines. */
function countersNotes(run: MemoryRun): string[] {
  const last = run.samples.at(-1);
  const s = last?.stats;
  if (!run.ok || !last || !s) return [`${LABEL[run.config]}: FAILED: ${run.detail}`];
  return [
    `${LABEL[run.config]}, after ${fmt(last.seconds, 1)} s: ${int(s.exportRequests)} export requests started, export failures counted: ${int(s.exportFailures)};`,
    `  of ${int(s.spansEnded)} spans, ${int(s.spansExported)} exported, ${int(s.spansDropped)} dropped and counted, ${int(s.spansHeld)} held ` +
      `(${int(s.spansQueued)} queued, ${int(s.spansHeld - s.spansQueued)} kept for a retry or being sent).`,
  ];
}

/** The configured bound on spans weft may hold, against the most it held at any checkpoint. */
function boundNote(runs: MemoryRun[], batch: MemoryBatch): string {
  const bound = batch.maxQueueSize + batch.maxRetrySpans + batch.maxExportBatchSize;
  const held = runs.filter((r) => r.config !== 'none').flatMap((r) => r.samples.map((s) => s.stats?.spansHeld ?? 0));
  const most = held.length ? Math.max(...held) : Number.NaN;
  return (
    `Bound on spans held, from this run's batch settings: ${int(batch.maxQueueSize)} queued + ${int(batch.maxRetrySpans)} kept for a retry ` +
    `+ ${int(batch.maxExportBatchSize)} of the batch sent with them = ${int(bound)}.\n  Most held at any checkpoint: ` +
    `${Number.isFinite(most) ? int(most) : '-'}${most > bound ? ' (ABOVE THE BOUND)' : ', within the bound'}.`
  );
}

/** How heap and RSS moved from the first checkpoint to the last, and the peak RSS, one line per run. */
function growthNotes(runs: MemoryRun[]): string[] {
  const parts = runs
    .filter((r) => r.ok && r.samples.length > 2)
    .map((r) => {
      const first = r.samples[1]!;
      const last = r.samples.at(-1)!;
      return `  ${LABEL[r.config]}: heap ${fmt(first.heapUsedMB, 1)} → ${fmt(last.heapUsedMB, 1)} MB, RSS ${fmt(first.rssMB, 0)} → ${fmt(last.rssMB, 0)} MB (peak ${fmt(r.peakRssMB, 0)} MB)`;
    });
  const from = runs.find((r) => r.samples.length > 2)?.samples[1]?.calls ?? Number.NaN;
  return [`From ${int(from)} calls to the end:`, ...parts];
}

/** Prints RSS and heap at each checkpoint side by side, the spans weft held, its counters, and the bound. */
export function printMemory(runs: MemoryRun[], opts: MemoryOptions): void {
  const longest = runs.reduce((a, r) => (r.samples.length > a.samples.length ? r : a), runs[0]!);
  const rows = longest.samples.map((s, i) => checkpointRow(runs, i, s.calls));
  const notes = [
    `${int(opts.calls)} chat calls through the real openai client (in-process fetch, ${opts.parallel} at a time, one turn of the event loop between batches).`,
    'RSS and heap after a full GC at each checkpoint. Spans held: ended, and neither exported nor dropped.',
    `An export is retried for up to ${int(opts.batch.exportTimeoutMillis)} ms (the batch's export timeout) before it counts as failed.`,
    ...runs.filter((r) => r.config !== 'none').flatMap(countersNotes),
    boundNote(runs, opts.batch),
    ...growthNotes(runs),
  ];
  const none = runs.find((r) => r.config === 'none');
  if (none && !none.ok) notes.push(`${LABEL.none}: FAILED: ${none.detail}`);
  printTable(
    `Memory over ${int(opts.calls)} traced calls, the trace backend refusing connections (and accepting, as a control)`,
    ['calls', 'uninstrumented RSS MB', 'heap MB', 'weft, backend down: RSS MB', 'heap MB', 'spans held', 'weft, backend up: RSS MB', 'heap MB', 'spans held'],
    rows,
    notes,
  );
}
