import type { ChatServer } from './lib/chat-server.js';
import { installedVersion, type ServingChild, serveChild } from './lib/child.js';
import { type OtlpSink, spansWithModel } from './lib/otlp-sink.js';
import { fmt, median, percentile, ratio } from './lib/stats.js';
import { printTable } from './lib/table.js';

/** Configurations, in print order; `none` is the uninstrumented baseline. */
export const CONFIGS = ['none', 'context', 'floor', 'weft', 'weft-lean', 'otel', 'arize', 'traceloop'] as const;
export type Config = (typeof CONFIGS)[number];
export const PEERS: readonly Config[] = ['otel', 'arize', 'traceloop'];
export const LABEL: Record<Config, string> = {
  none: 'uninstrumented',
  context: 'no spans, a context manager on (not a peer)',
  floor: 'floor: a bare span around each call (not a peer)',
  weft: 'weft',
  'weft-lean': 'weft, no content, no stream usage (not a peer)',
  otel: '@opentelemetry/instrumentation-openai',
  arize: '@arizeai/openinference-instrumentation-openai',
  traceloop: '@traceloop/instrumentation-openai',
};

/** `openai` is the newest major (7.x); `openai-v6` is 6.x under an npm alias. */
export const OPENAI_PACKAGES = ['openai', 'openai-v6'] as const;

/**
 * How the client reaches the chat server. `loopback`: real sockets to the loopback server, the whole cost a
 * service pays. `memory`: the same bytes from an in-process fetch; without the network's many async resources
 * (each of which pays Node 20's async-hooks cost once a context manager is active) and its scheduling noise, what
 * is left is each instrumentation's own work.
 */
export const TRANSPORTS = ['loopback', 'memory'] as const;
export type Transport = (typeof TRANSPORTS)[number];
const TRANSPORT_LABEL: Record<Transport, string> = { loopback: 'loopback sockets', memory: 'in-memory fetch' };
/** Every transport with every `openai` package, in print order. */
export const TRANSPORT_PACKAGES = TRANSPORTS.flatMap((t) => OPENAI_PACKAGES.map((o) => [t, o] as const));

/** Warm-up calls per mode in one child, and timed calls per mode in one slice. */
export interface CallCounts {
  warmup: number;
  calls: number;
}

export interface PerCallOptions {
  /** Child processes per configuration, one after another (a process's JIT and memory layout vary a little). */
  processes: number;
  /** Slices per process: each configuration's timed calls come in slices, interleaved with every other one's. */
  slices: number;
  /** Per transport: an in-memory call is about ten times quicker, so it takes more calls to reach a steady state. */
  counts: Record<Transport, CallCounts>;
  /** Configurations to run; default all. */
  only?: readonly Config[];
}

interface ModeRun {
  wallNs: number[];
  firstChunkNs: number[];
  chunksPerCall: number;
  cpuUs: number;
  /** The kernel's part of `cpuUs` (sockets, epoll, memory mapping): a small part, even over loopback (docs/PERFORMANCE.md). */
  cpuSystemUs: number;
  loopNs: number;
  flushNs: number;
}

/** One slice of one configuration, as written to the JSON file. */
export interface PerCallRun {
  openai: string;
  transport: Transport;
  config: Config;
  /** Which child process of this configuration (0-based). */
  process: number;
  /** Which slice, counted over every process of the run: the runs of one slice are compared with each other. */
  slice: number;
  status: 'ok' | 'broken' | 'lost' | 'failed';
  detail: string;
  spansExported: number;
  spansWithModel: number;
  spansExpected: number;
  plain?: ModeSummary;
  stream?: ModeSummary;
}

/** The distribution of one child's per-call times, in microseconds. */
interface Spread {
  p10: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

interface ModeSummary {
  medianWallUs: number;
  p90WallUs: number;
  medianFirstChunkUs: number;
  cpuUsPerCall: number;
  /** The kernel's part of `cpuUsPerCall`. */
  cpuSystemUsPerCall: number;
  chunksPerCall: number;
  flushMs: number;
  /** Percentiles rather than every call: tens of thousands of timings per run would make the file megabytes. */
  wallSpreadUs: Spread;
  /** Absent for non-streamed calls. */
  firstChunkSpreadUs?: Spread;
}

function spread(ns: readonly number[]): Spread {
  const at = (p: number) => Math.round(percentile(ns, p) / 100) / 10;
  return { p10: at(10), p50: at(50), p90: at(90), p99: at(99), max: at(100) };
}

function summarise(run: ModeRun, calls: number): ModeSummary {
  return {
    medianWallUs: median(run.wallNs) / 1000,
    p90WallUs: percentile(run.wallNs, 90) / 1000,
    medianFirstChunkUs: median(run.firstChunkNs) / 1000,
    cpuUsPerCall: run.cpuUs / calls,
    cpuSystemUsPerCall: run.cpuSystemUs / calls,
    chunksPerCall: run.chunksPerCall,
    flushMs: run.flushNs / 1e6,
    wallSpreadUs: spread(run.wallNs),
    ...(run.firstChunkNs.some((v) => v > 0) ? { firstChunkSpreadUs: spread(run.firstChunkNs) } : {}),
  };
}

/** Rotates the order of configurations each slice so that no configuration always runs first or last. */
function orderFor(slice: number): Config[] {
  const k = slice % CONFIGS.length;
  return [...CONFIGS.slice(k), ...CONFIGS.slice(0, k)];
}

const MODES = ['plain', 'stream'] as const;

/** Starts one configuration's child and waits for its warm-up; or why it could not. */
async function startConfig(
  transport: Transport,
  openai: string,
  config: Config,
  opts: PerCallOptions,
  chat: ChatServer,
  sink: OtlpSink,
): Promise<{ child?: ServingChild; error?: string }> {
  const job = {
    config,
    openai,
    transport,
    urls: { origin: sink.origin, tracesUrl: sink.tracesUrl },
    chatBaseURL: chat.baseURL,
    warmup: opts.counts[transport].warmup,
    serve: true,
  };
  try {
    return { child: await serveChild('percall.cjs', job, { timeoutMs: 300_000 }) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Times one slice of `config` (each mode in turn), and checks at the receiver that it exported a span per call, each naming its model. */
async function runSlice(
  child: ServingChild,
  base: Pick<PerCallRun, 'openai' | 'transport' | 'config' | 'process' | 'slice'>,
  calls: number,
  sink: OtlpSink,
): Promise<PerCallRun> {
  sink.drain();
  const summaries: Partial<Record<(typeof MODES)[number], ModeSummary>> = {};
  try {
    for (const mode of MODES) summaries[mode] = summarise(await child.ask<ModeRun>({ mode, calls }), calls);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ...base, status: 'failed', detail, spansExported: 0, spansWithModel: 0, spansExpected: 0 };
  }
  const tally = sink.drain();
  const makesSpans = base.config !== 'none' && base.config !== 'context';
  const expected = makesSpans ? MODES.length * calls : 0;
  const withModel = spansWithModel(tally.spans);
  const run = { ...base, spansExported: tally.spans.length, spansWithModel: withModel, spansExpected: expected, ...summaries };
  if (makesSpans && tally.spans.length === 0) return { ...run, status: 'broken', detail: 'exported no spans' };
  if (withModel < expected) return { ...run, status: 'lost', detail: `${expected - withModel} of ${expected} spans missing or without a model` };
  return { ...run, status: 'ok', detail: '' };
}

/** Everything the per-call benchmark measured. */
export interface PerCallResult {
  options: PerCallOptions;
  /** Installed version of each `openai` package. */
  versions: Record<string, string>;
  runs: PerCallRun[];
}

/**
 * Runs every configuration on every `openai` package in its own child process. For one `openai` package and
 * transport, every configuration's child is started and warmed up first; then their timed calls run in slices,
 * one configuration at a time, in an order rotated each slice. What a configuration adds is taken against the
 * uninstrumented slice next to it in time, so that the machine's drift (other tenants, a busy second core) falls
 * on every configuration alike rather than on whichever ran in a bad minute. A configuration that exports
 * nothing in its first slice is reported broken and not run again.
 */
export async function benchPerCall(opts: PerCallOptions, chat: ChatServer, sink: OtlpSink, log: (s: string) => void): Promise<PerCallResult> {
  const runs: PerCallRun[] = [];
  const gaveUp = new Set<string>();
  for (let processIndex = 0; processIndex < opts.processes; processIndex++) {
    for (const transport of TRANSPORTS) {
      for (const openai of OPENAI_PACKAGES) {
        const keyOf = (config: Config) => `${transport}/${openai}/${config}`;
        const children = new Map<Config, ServingChild>();
        for (const config of CONFIGS) {
          const key = keyOf(config);
          if (gaveUp.has(key) || (opts.only && !opts.only.includes(config))) continue;
          const { child, error } = await startConfig(transport, openai, config, opts, chat, sink);
          if (child) children.set(config, child);
          else {
            gaveUp.add(key);
            const base = { openai, transport, config, process: processIndex, slice: processIndex * opts.slices };
            runs.push({ ...base, status: 'failed', detail: error ?? '', spansExported: 0, spansWithModel: 0, spansExpected: 0 });
            log(`  ${transport} ${openai} ${config}: failed to start (${error})`);
          }
        }
        sink.drain(); // the warm-ups' spans
        for (let s = 0; s < opts.slices; s++) {
          const slice = processIndex * opts.slices + s;
          for (const config of orderFor(slice)) {
            const child = children.get(config);
            const key = keyOf(config);
            if (!child || gaveUp.has(key)) continue;
            const run = await runSlice(child, { openai, transport, config, process: processIndex, slice }, opts.counts[transport].calls, sink);
            runs.push(run);
            if (run.status === 'broken' || run.status === 'failed') {
              gaveUp.add(key);
              child.kill();
            }
          }
          log(`  process ${processIndex + 1}/${opts.processes}, slice ${s + 1}/${opts.slices}: ${transport} ${openai}`);
        }
        for (const [config, child] of children) {
          if (!gaveUp.has(keyOf(config))) await child.ask({ stop: true }).catch(() => undefined);
          child.kill();
        }
      }
    }
  }
  const versions = Object.fromEntries(OPENAI_PACKAGES.map((p) => [p, installedVersion(p)]));
  return { options: opts, versions, runs };
}

/** One configuration's medians over slices, and what it adds to the uninstrumented baseline. */
export interface ConfigFigures {
  status: string;
  detail: string;
  wall: number;
  cpu: number;
  firstChunk: number;
  added: number;
  addedCpu: number;
  addedFirstChunk: number;
}

/** Medians over the slices of one `openai` package's runs, per configuration. */
export function figuresFor(runs: PerCallRun[], mode: 'plain' | 'stream'): Map<Config, ConfigFigures> {
  const figures = new Map<Config, ConfigFigures>();
  const good = (c: Config) => runs.filter((r) => r.config === c && r.status === 'ok' && r[mode]);
  const baseline = new Map(good('none').map((r) => [r.slice, r[mode]!]));
  // What a configuration adds is taken slice by slice against the uninstrumented run of the same slice, then
  // the median over slices: drift in the machine's load between slices then cancels out.
  const addedBy = (ok: PerCallRun[], pick: (m: ModeSummary) => number) =>
    median(ok.filter((r) => baseline.has(r.slice)).map((r) => pick(r[mode]!) - pick(baseline.get(r.slice)!)));
  for (const c of CONFIGS) {
    const all = runs.filter((r) => r.config === c);
    if (all.length === 0) continue;
    const bad = all.find((r) => r.status !== 'ok');
    const ok = good(c);
    figures.set(c, {
      status: bad ? bad.status.toUpperCase() : `ok, ${ok[0]?.spansExported ?? 0} spans/run`,
      detail: bad?.detail ?? '',
      wall: median(ok.map((r) => r[mode]!.medianWallUs)),
      cpu: median(ok.map((r) => r[mode]!.cpuUsPerCall)),
      firstChunk: median(ok.map((r) => r[mode]!.medianFirstChunkUs)),
      added: addedBy(ok, (m) => m.medianWallUs),
      addedCpu: addedBy(ok, (m) => m.cpuUsPerCall),
      addedFirstChunk: addedBy(ok, (m) => m.medianFirstChunkUs),
    });
  }
  return figures;
}

function chunksSeen(runs: PerCallRun[], c: Config): number {
  return median(runs.filter((r) => r.config === c && r.stream).map((r) => r.stream!.chunksPerCall));
}

/** The lowest added cost among the peers that exported their spans; NaN when none did. */
export function bestPeer(figures: Map<Config, ConfigFigures>, key: 'added' | 'addedCpu'): number {
  const values = PEERS.map((p) => figures.get(p))
    .filter((f): f is ConfigFigures => !!f && f.status.startsWith('ok'))
    .map((f) => f[key]);
  return values.length ? Math.min(...values) : Number.NaN;
}

/** Prints one table per `openai` package and mode, and the time-to-first-chunk table. */
export function printPerCall(result: PerCallResult): void {
  for (const [transport, openai] of TRANSPORT_PACKAGES) {
    const runs = result.runs.filter((r) => r.openai === openai && r.transport === transport);
    if (runs.length === 0) continue;
    for (const mode of ['plain', 'stream'] as const) {
      const figures = figuresFor(runs, mode);
      const bestWall = bestPeer(figures, 'added');
      const bestCpu = bestPeer(figures, 'addedCpu');
      const notes = [
        'CPU = the child process over the timed calls plus the flush that exports their spans, per call.',
        'weft, arize and traceloop record message content on the span, and weft asks streams for their usage;',
        '@opentelemetry/instrumentation-openai by default records no content (it emits content as log events, and no',
        'log pipeline is set up) and no stream usage. "weft, no content, no stream usage" records what it records.',
      ];
      if (mode === 'stream') notes.push('chunks = chunks the app saw per call; it must be the same for every configuration.');
      for (const c of CONFIGS) {
        const f = figures.get(c);
        if (f?.detail) notes.push(`${LABEL[c]}: ${f.status}: ${f.detail}`);
      }
      const rows = CONFIGS.filter((c) => figures.has(c)).map((c) => {
        const f = figures.get(c)!;
        const ok = f.status.startsWith('ok');
        const isBase = c === 'none';
        return [
          LABEL[c],
          fmt(f.wall, 1),
          isBase || !ok ? '-' : fmt(f.added, 1),
          isBase || !ok ? '-' : ratio(f.added / bestWall),
          fmt(f.cpu, 1),
          isBase || !ok ? '-' : fmt(f.addedCpu, 1),
          isBase || !ok ? '-' : ratio(f.addedCpu / bestCpu),
          ...(mode === 'stream' ? [fmt(chunksSeen(runs, c), 1)] : []),
          isBase ? 'baseline' : f.status,
        ];
      });
      const what = mode === 'plain' ? 'non-streaming' : 'streaming, every chunk consumed';
      printTable(
        `Per-call overhead, ${TRANSPORT_LABEL[transport]}: ${openai}@${result.versions[openai]}, ${what} (medians of ${result.options.processes * result.options.slices} slices × ${result.options.counts[transport].calls} calls, ${result.options.processes} processes)`,
        [
          'configuration',
          'wall µs/call',
          'added µs',
          'vs best peer',
          'CPU µs/call',
          'added CPU µs',
          'vs best peer',
          ...(mode === 'stream' ? ['chunks'] : []),
          'exported',
        ],
        rows,
        notes,
      );
    }
  }
  const rows: string[][] = [];
  // Over loopback sockets only: the real wait for a first chunk. In memory the reply arrives whole; what weft adds
  // before the first chunk there is judged in the goals table.
  const loopback = result.runs.filter((r) => r.transport === 'loopback');
  for (const openai of OPENAI_PACKAGES) {
    const figures = figuresFor(
      loopback.filter((r) => r.openai === openai),
      'stream',
    );
    for (const c of ['none', 'context', 'floor', 'weft', 'weft-lean'] as const) {
      const f = figures.get(c);
      if (!f) continue;
      const good = loopback.filter((r) => r.openai === openai && r.config === c && r.status === 'ok' && r.stream);
      const p90 = median(good.map((r) => r.stream!.firstChunkSpreadUs?.p90 ?? Number.NaN));
      rows.push([openai, LABEL[c], fmt(f.firstChunk, 1), fmt(p90, 1), c === 'none' ? '-' : fmt(f.addedFirstChunk, 1)]);
    }
  }
  printTable('Time to first streamed chunk (loopback sockets)', ['openai', 'configuration', 'median µs', 'p90 µs', 'added µs'], rows);
}

