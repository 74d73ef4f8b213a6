import { runChild } from './lib/child.js';
import type { OtlpSink } from './lib/otlp-sink.js';
import { fmt, median, ratio } from './lib/stats.js';
import { printTable } from './lib/table.js';

/** The two pipelines compared: weft's register(), and the stock OTel batch processor + OTLP/proto exporter. */
export const PIPELINES = ['weft', 'stock'] as const;
export type Pipeline = (typeof PIPELINES)[number];

export interface ThroughputOptions {
  rounds: number;
  spans: number;
  /** Spans made between two yields to the event loop. */
  burst: number;
  /** Queue size of both pipelines; the producer never lets more than this wait. */
  queue: number;
}

/**
 * `complete`: every span made reached the receiver, once. `lost`: some did not (or arrived twice); such a run is
 * not timed, since a pipeline that drops spans finishes sooner. `failed`: the child did not finish.
 */
export type RunStatus = 'complete' | 'lost' | 'failed';

/** One child run, as written to the JSON file. */
export interface ThroughputRun {
  pipeline: Pipeline;
  round: number;
  status: RunStatus;
  detail: string;
  produced: number;
  /** Distinct spans that reached the receiver. */
  delivered: number;
  /** Spans that reached the receiver more than once. */
  duplicates: number;
  /** What the pipeline itself counted as dropped (weft's handle); null when it does not count them. */
  dropped: number | null;
  wireBytes: number;
  requests: number;
  elapsedMs: number;
  cpuMs: number;
  /** Time the producer waited for room in the queue. */
  waitedMs: number;
}

interface ChildReport {
  elapsedNs: number;
  cpuUs: number;
  produced: number;
  dropped: number | null;
  waitedMs: number;
}

/** Runs one pipeline once and tallies, by each span's response id, what reached the sink. */
async function runOnce(pipeline: Pipeline, round: number, opts: ThroughputOptions, sink: OtlpSink): Promise<ThroughputRun> {
  sink.drain();
  const job = { pipeline, spans: opts.spans, burst: opts.burst, queue: opts.queue, urls: { origin: sink.origin, tracesUrl: sink.tracesUrl } };
  const outcome = await runChild<ChildReport>('throughput.cjs', job);
  const tally = sink.drain();
  const delivered = new Set(tally.spans.map((s) => s.attributes['gen_ai.response.id'])).size;
  const base = { pipeline, round, delivered, duplicates: tally.spans.length - delivered, wireBytes: tally.wireBytes, requests: tally.requests };
  if (!outcome.ok) {
    const failed = { status: 'failed' as const, detail: outcome.error, produced: opts.spans, dropped: null };
    return { ...base, ...failed, elapsedMs: Number.NaN, cpuMs: Number.NaN, waitedMs: Number.NaN };
  }
  const r = outcome.value;
  const complete = delivered === r.produced && base.duplicates === 0;
  const missing = `${r.produced - delivered} of ${r.produced} spans missing${base.duplicates ? `, ${base.duplicates} delivered twice` : ''}`;
  return {
    ...base,
    status: complete ? 'complete' : 'lost',
    detail: complete ? '' : missing,
    produced: r.produced,
    dropped: r.dropped,
    elapsedMs: r.elapsedNs / 1e6,
    cpuMs: r.cpuUs / 1000,
    waitedMs: r.waitedMs,
  };
}

/** Runs both pipelines, alternating which goes first, and tallies what reached the sink. */
export async function benchThroughput(opts: ThroughputOptions, sink: OtlpSink, log: (s: string) => void): Promise<ThroughputRun[]> {
  const runs: ThroughputRun[] = [];
  for (let round = 0; round < opts.rounds; round++) {
    const order = round % 2 ? [...PIPELINES].reverse() : PIPELINES;
    for (const pipeline of order) {
      const run = await runOnce(pipeline, round, opts, sink);
      runs.push(run);
      log(`  round ${round + 1}/${opts.rounds} ${pipeline}: ${run.status}, ${run.delivered} spans${run.detail ? ` (${run.detail})` : ''}`);
    }
  }
  return runs;
}

/** Spans per second of a complete run: from the first span made to the end of the flush. */
export function spansPerSecond(run: ThroughputRun): number {
  return run.status === 'complete' ? run.delivered / (run.elapsedMs / 1000) : Number.NaN;
}

/** weft's rate over stock's, per round, for the rounds in which both delivered every span. */
export function roundRatios(runs: ThroughputRun[]): number[] {
  const rounds = [...new Set(runs.map((r) => r.round))];
  return rounds
    .map((round) => {
      const pick = (p: Pipeline) => runs.find((r) => r.round === round && r.pipeline === p);
      return spansPerSecond(pick('weft')!) / spansPerSecond(pick('stock')!);
    })
    .filter(Number.isFinite);
}

/** One pipeline's figures over its runs. */
function pipelineFigures(runs: ThroughputRun[], p: Pipeline) {
  const mine = runs.filter((r) => r.pipeline === p);
  const complete = mine.filter((r) => r.status === 'complete');
  const delivered = mine.filter((r) => r.status !== 'failed' && r.delivered > 0);
  const failed = mine.find((r) => r.status === 'failed');
  const counted = mine.map((r) => r.dropped).filter((d): d is number => d !== null);
  return {
    p,
    rate: median(complete.map(spansPerSecond)),
    complete: `${complete.length}/${mine.length}`,
    worst: delivered.length ? Math.min(...delivered.map((r) => r.delivered)) : Number.NaN,
    counted: counted.length ? String(Math.max(...counted)) : 'not counted',
    cpuPerSpan: median(complete.map((r) => (r.cpuMs * 1000) / r.produced)),
    bytes: median(delivered.map((r) => r.wireBytes / r.delivered)),
    waitedMs: median(complete.map((r) => r.waitedMs)),
    status: failed ? `FAILED: ${failed.detail}` : (mine.find((r) => r.status === 'lost')?.detail ?? 'ok'),
  };
}

/** Prints spans per second over complete runs, what was lost, CPU per span and bytes per span on the wire. */
export function printThroughput(runs: ThroughputRun[], opts: ThroughputOptions, inputMessagesBytes: number): void {
  const figures = PIPELINES.map((p) => pipelineFigures(runs, p));
  const stock = figures.find((f) => f.p === 'stock')!;
  const ratios = roundRatios(runs);
  printTable(
    `Export throughput (${opts.spans} spans per run, ${opts.rounds} rounds; ~13 attributes, ${(inputMessagesBytes / 1024).toFixed(1)} KB input messages)`,
    ['pipeline', 'spans/s', 'vs stock', 'complete runs', 'fewest delivered', 'dropped (own count)', 'CPU µs/span', 'bytes/span on wire', 'waited ms', 'status'],
    figures.map((f) => [
      f.p === 'weft' ? 'weft register()' : 'stock BatchSpanProcessor + OTLPTraceExporter (proto)',
      fmt(f.rate, 0),
      ratio(f.rate / stock.rate),
      f.complete,
      `${fmt(f.worst, 0)}/${opts.spans}`,
      f.counted,
      fmt(f.cpuPerSpan, 1),
      fmt(f.bytes, 0),
      fmt(f.waitedMs, 0),
      f.status,
    ]),
    [
      `Both pipelines have a queue of ${opts.queue} spans. Spans are made in bursts of ${opts.burst}, a turn of the event loop after each;`,
      'before a burst that would not fit in the queue, the producer waits (waited ms) until the exporter has taken a batch, so that neither has to drop.',
      'Delivered = distinct spans decoded at the receiver. spans/s = spans ÷ time from the first span to the end of the flush, median over',
      'complete runs only (every span delivered once); CPU µs/span over the same runs. Dropped (own count): the most weft\'s handle counted in a run.',
      `weft ÷ stock, round by round (rounds where both were complete): ${ratios.map((r) => r.toFixed(2)).join(' ') || '-'}.`,
    ],
  );
}
