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
}

/** One child run, as written to the JSON file. */
export interface ThroughputRun {
  pipeline: Pipeline;
  round: number;
  ok: boolean;
  detail: string;
  produced: number;
  delivered: number;
  dropped: number | null;
  wireBytes: number;
  requests: number;
  elapsedMs: number;
  cpuMs: number;
}

interface ChildReport {
  elapsedNs: number;
  cpuUs: number;
  produced: number;
  dropped: number | null;
}

/** Runs both pipelines, alternating, and tallies what reached the sink. */
export async function benchThroughput(opts: ThroughputOptions, sink: OtlpSink, log: (s: string) => void): Promise<ThroughputRun[]> {
  const runs: ThroughputRun[] = [];
  for (let round = 0; round < opts.rounds; round++) {
    const order = round % 2 ? [...PIPELINES].reverse() : PIPELINES;
    for (const pipeline of order) {
      sink.drain();
      const job = { pipeline, spans: opts.spans, burst: opts.burst, urls: { origin: sink.origin, tracesUrl: sink.tracesUrl } };
      const outcome = await runChild<ChildReport>('throughput.cjs', job);
      const tally = sink.drain();
      const base = {
        pipeline,
        round,
        delivered: tally.spans.length,
        wireBytes: tally.wireBytes,
        requests: tally.requests,
      };
      if (!outcome.ok) {
        runs.push({ ...base, ok: false, detail: outcome.error, produced: opts.spans, dropped: null, elapsedMs: Number.NaN, cpuMs: Number.NaN });
      } else {
        const r = outcome.value;
        runs.push({
          ...base,
          ok: tally.spans.length > 0,
          detail: tally.spans.length > 0 ? '' : 'no span reached the receiver',
          produced: r.produced,
          dropped: r.dropped,
          elapsedMs: r.elapsedNs / 1e6,
          cpuMs: r.cpuUs / 1000,
        });
      }
      const last = runs.at(-1)!;
      log(`  round ${round + 1}/${opts.rounds} ${pipeline}: ${last.ok ? `${last.delivered} spans` : last.detail}`);
    }
  }
  return runs;
}

/** Prints spans per second delivered, CPU per span and bytes per span on the wire, per pipeline. */
export function printThroughput(runs: ThroughputRun[], opts: ThroughputOptions, inputMessagesBytes: number): void {
  const figures = PIPELINES.map((p) => {
    const good = runs.filter((r) => r.pipeline === p && r.ok);
    const failed = runs.find((r) => r.pipeline === p && !r.ok);
    return {
      p,
      rate: median(good.map((r) => r.delivered / (r.elapsedMs / 1000))),
      cpuPerSpan: median(good.map((r) => (r.cpuMs * 1000) / r.produced)),
      bytes: median(good.map((r) => r.wireBytes / r.delivered)),
      delivered: median(good.map((r) => r.delivered)),
      status: failed ? `FAILED: ${failed.detail}` : 'ok',
    };
  });
  const stock = figures.find((f) => f.p === 'stock')!;
  printTable(
    `Export throughput (${opts.spans} spans per run, ${opts.rounds} rounds; ~13 attributes, ${(inputMessagesBytes / 1024).toFixed(1)} KB input messages)`,
    ['pipeline', 'spans/s delivered', 'vs stock', 'CPU µs/span', 'bytes/span on wire', 'delivered', 'status'],
    figures.map((f) => [
      f.p === 'weft' ? 'weft register()' : 'stock BatchSpanProcessor + OTLPTraceExporter (proto)',
      fmt(f.rate, 0),
      ratio(f.rate / stock.rate),
      fmt(f.cpuPerSpan, 1),
      fmt(f.bytes, 0),
      `${fmt(f.delivered, 0)}/${opts.spans}`,
      f.status,
    ]),
    [`Spans are made in bursts of ${opts.burst} with a yield between bursts; the clock stops when forceFlush() resolves.`],
  );
}
