import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChatServer } from './lib/chat-server.js';
import { type ServingChild, serveChild } from './lib/child.js';
import { deadPort } from './lib/dead-port.js';
import { listenOnLoopback } from './lib/loopback-server.js';
import { OTLP_OK_BODY } from './lib/otlp-sink.js';
import { fmt, median, percentile, signTestP } from './lib/stats.js';
import { printTable } from './lib/table.js';
import { decodeTraceExport } from '../src/otlp/index.js';

/**
 * Issue 8's reliability question, measured: does a trace service that misbehaves slow the app's own calls? Each
 * configuration is a child process making `openai` calls to the loopback chat server while weft exports to one kind
 * of backend: one that takes everything (`up`, the control), refuses connections (`down`), accepts and never answers
 * (`hanging`), answers 500, answers 429 with `Retry-After: 1`, or flaps between 503 and 200 every
 * {@link FLAP_PERIOD_MS} ms. Uninstrumented calls run alongside, for scale. The slices of every configuration are
 * interleaved, and each fault is compared with `up` slice by slice, so the machine's drift cancels out.
 */
export const FAULT_CONFIGS = ['none', 'up', 'down', 'hanging', 'error-500', 'throttled-429', 'flapping'] as const;
export type FaultConfig = (typeof FAULT_CONFIGS)[number];
const FAULTS = FAULT_CONFIGS.filter((c) => c !== 'none' && c !== 'up');

const LABEL: Record<FaultConfig, string> = {
  none: 'uninstrumented',
  up: 'weft, backend up (control)',
  down: 'weft, backend refusing connections',
  hanging: 'weft, backend never answering',
  'error-500': 'weft, backend answering 500',
  'throttled-429': 'weft, backend answering 429, Retry-After: 1',
  flapping: 'weft, backend flapping 503/200',
};

/** How long the flapping backend stays in each state. */
const FLAP_PERIOD_MS = 250;

const MODES = ['plain', 'stream'] as const;
type Mode = (typeof MODES)[number];

export interface FaultOptions {
  /** Child processes per configuration, one after another. */
  processes: number;
  /** Slices per process and mode. */
  slices: number;
  warmup: number;
  /** Calls per slice: enough that weft's exporter (a batch every 512 spans, or every second) tries the backend in each. */
  calls: number;
}

interface Counters {
  spansEnded: number;
  spansExported: number;
  spansDropped: number;
  exportFailures: number;
}

interface SliceReply {
  wallNs: number[];
  cpuUs: number;
  loopDelayMaxMs: number;
  loopDelayP99Ms: number;
  stats: Counters | null;
}

/** One slice of one configuration, summarised. */
export interface FaultSlice {
  config: FaultConfig;
  mode: Mode;
  process: number;
  slice: number;
  medianUs: number;
  p99Us: number;
  maxUs: number;
  cpuUsPerCall: number;
  loopDelayMaxMs: number;
  loopDelayP99Ms: number;
}

/** What one weft process exported and dropped, once its backend was made healthy where it could be and it flushed. */
export interface FaultProcessEnd {
  config: FaultConfig;
  process: number;
  stats: Counters | null;
  /** Distinct spans the backend took, once it had recovered too. */
  spansReceived: number | undefined;
  error?: string;
}

export interface FaultResult {
  options: FaultOptions;
  slices: FaultSlice[];
  ends: FaultProcessEnd[];
}

/** A loopback trace backend that behaves one way, and what it took. */
interface Backend {
  origin: string;
  /** Distinct spans accepted (decoded after the run). */
  received(): number;
  /** Takes everything from now on: the service has recovered. */
  recover(): Promise<void>;
  close(): Promise<void>;
}

/** Distinct span ids in the accepted bodies: a span sent again after a failure counts once. */
function distinctSpans(bodies: Buffer[]): number {
  const ids = new Set<string>();
  for (const body of bodies) for (const span of decodeTraceExport(body).spans) ids.add(span.spanId);
  return ids.size;
}

async function startBackend(config: Exclude<FaultConfig, 'none'>): Promise<Backend> {
  const accepted: Buffer[] = [];
  const accept = (_req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    accepted.push(body);
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(OTLP_OK_BODY);
  };
  if (config === 'down') {
    const port = await deadPort();
    // Recovering, the service starts listening where nothing did.
    let server: { close: () => Promise<void> } | undefined;
    return {
      origin: `http://127.0.0.1:${port}`,
      received: () => distinctSpans(accepted),
      recover: async () => {
        server ??= await listenOnLoopback(accept, { port });
      },
      close: async () => server?.close(),
    };
  }
  let healthy = config === 'up';
  const startedAt = Date.now();
  // The flapping backend's state follows the clock: no timer to keep or stop.
  const healthyNow = () => healthy || (config === 'flapping' && Math.floor((Date.now() - startedAt) / FLAP_PERIOD_MS) % 2 === 1);
  const server = await listenOnLoopback((req, res, body) => {
    if (healthyNow()) accept(req, res, body);
    else if (config === 'hanging') {
      // Never answers: the request stays open until the exporter gives up on it.
    } else if (config === 'throttled-429') {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"detail":"slow down"}');
    } else {
      res.writeHead(config === 'flapping' ? 503 : 500, { 'content-type': 'application/json' }).end('{"detail":"unavailable"}');
    }
  });
  return {
    origin: server.origin,
    received: () => distinctSpans(accepted),
    recover: async () => {
      healthy = true;
    },
    close: server.close,
  };
}

/** Every configuration in turn, the order rotated each slice, so that no configuration always follows the same one. */
function orderFor(slice: number): FaultConfig[] {
  const k = slice % FAULT_CONFIGS.length;
  return [...FAULT_CONFIGS.slice(k), ...FAULT_CONFIGS.slice(0, k)];
}

function summarise(reply: SliceReply, base: Omit<FaultSlice, 'medianUs' | 'p99Us' | 'maxUs' | 'cpuUsPerCall' | 'loopDelayMaxMs' | 'loopDelayP99Ms'>): FaultSlice {
  const us = reply.wallNs.map((ns) => ns / 1000);
  return {
    ...base,
    medianUs: median(us),
    p99Us: percentile(us, 99),
    maxUs: Math.max(...us),
    cpuUsPerCall: reply.cpuUs / us.length,
    loopDelayMaxMs: reply.loopDelayMaxMs,
    loopDelayP99Ms: reply.loopDelayP99Ms,
  };
}

/** Runs every configuration against its backend, slice by slice, then lets each weft process finish its export. */
export async function benchFaults(opts: FaultOptions, chat: ChatServer, log: (s: string) => void): Promise<FaultResult> {
  const slices: FaultSlice[] = [];
  const ends: FaultProcessEnd[] = [];
  for (let process = 0; process < opts.processes; process++) {
    const backends = new Map<FaultConfig, Backend>();
    const children = new Map<FaultConfig, ServingChild>();
    try {
      for (const config of FAULT_CONFIGS) {
        const backend = config === 'none' ? undefined : await startBackend(config);
        if (backend) backends.set(config, backend);
        const job = { config: config === 'none' ? 'none' : 'weft', backend: backend?.origin, chatBaseURL: chat.baseURL, warmup: opts.warmup, modes: MODES };
        children.set(config, await serveChild('faults.cjs', job, { timeoutMs: 120_000 }));
      }
      for (let s = 0; s < opts.slices; s++) {
        const slice = process * opts.slices + s;
        for (const mode of MODES) {
          for (const config of orderFor(slice)) {
            const reply = await children.get(config)!.ask<SliceReply>({ mode, calls: opts.calls });
            slices.push(summarise(reply, { config, mode, process, slice }));
          }
        }
        log(`  process ${process + 1}/${opts.processes}, slice ${s + 1}/${opts.slices}`);
      }
      for (const [config, backend] of backends) {
        // The service comes back: what weft still holds (the flapping backend's retries) must now get through.
        await backend.recover();
        const end = await children
          .get(config)!
          .ask<{ stats: Counters | null }>({ finish: true })
          .then(
            (reply) => ({ config, process, stats: reply.stats, spansReceived: backend.received() }),
            (error: Error) => ({ config, process, stats: null, spansReceived: undefined, error: error.message }),
          );
        ends.push(end);
      }
    } finally {
      for (const child of children.values()) child.kill();
      for (const backend of backends.values()) await backend.close();
    }
  }
  return { options: opts, slices, ends };
}

/** How `config` compares with the control slice by slice: the median difference, and whether it is slower beyond chance. */
interface VersusControl {
  median: number;
  slower: number;
  pairs: number;
  p: number;
}

function versusControl(result: FaultResult, config: FaultConfig, mode: Mode, pick: (s: FaultSlice) => number): VersusControl {
  const control = new Map(result.slices.filter((s) => s.config === 'up' && s.mode === mode).map((s) => [s.slice, pick(s)]));
  const diffs = result.slices
    .filter((s) => s.config === config && s.mode === mode && control.has(s.slice))
    .map((s) => pick(s) - control.get(s.slice)!);
  const slower = diffs.filter((d) => d > 0).length;
  return { median: median(diffs), slower, pairs: diffs.length, p: signTestP(slower, diffs.length) };
}

/** A sign test below this chance counts as slower beyond slice-to-slice noise. */
const SIGNIFICANT = 0.05;
const signed = (v: number) => `${v >= 0 ? '+' : ''}${fmt(v, 1)}`;
const int = (n: number) => n.toLocaleString('en-US');

/** The export counters of every process of `config`, added up. */
function totals(result: FaultResult, config: FaultConfig): { stats: Counters; received: number | undefined; errors: string[] } {
  const ends = result.ends.filter((e) => e.config === config);
  const stats = { spansEnded: 0, spansExported: 0, spansDropped: 0, exportFailures: 0 };
  let received: number | undefined;
  for (const e of ends) {
    for (const key of Object.keys(stats) as (keyof Counters)[]) stats[key] += e.stats?.[key] ?? 0;
    if (e.spansReceived !== undefined) received = (received ?? 0) + e.spansReceived;
  }
  return { stats, received, errors: ends.flatMap((e) => (e.error ? [e.error] : [])) };
}

/** One table per mode: each backend's call times against the control's, the event loop's delays, and the export's counts. */
export function printFaults(result: FaultResult): void {
  const { processes, slices, calls } = result.options;
  for (const mode of MODES) {
    const rows = FAULT_CONFIGS.map((config) => {
      const own = result.slices.filter((s) => s.config === config && s.mode === mode);
      const isControl = config === 'up' || config === 'none';
      const med = versusControl(result, config, mode, (s) => s.medianUs);
      const p99 = versusControl(result, config, mode, (s) => s.p99Us);
      return [
        LABEL[config],
        fmt(median(own.map((s) => s.medianUs)), 1),
        isControl ? '-' : `${signed(med.median)} (${med.slower}/${med.pairs})`,
        fmt(median(own.map((s) => s.p99Us)), 1),
        isControl ? '-' : `${signed(p99.median)} (${p99.slower}/${p99.pairs})`,
        fmt(Math.max(...own.map((s) => s.maxUs)) / 1000, 1),
        fmt(median(own.map((s) => s.cpuUsPerCall)), 1),
        fmt(Math.max(...own.map((s) => s.loopDelayMaxMs)), 1),
      ];
    });
    printTable(
      `Calls while the trace backend misbehaves, loopback sockets, ${mode === 'plain' ? 'non-streaming' : 'streaming'} (${processes} processes × ${slices} slices × ${calls} calls)`,
      ['configuration', 'median µs', 'vs control', 'p99 µs', 'vs control', 'slowest ms', 'CPU µs/call', 'loop delay max ms'],
      rows,
      [
        'median and p99: medians over slices of each slice\'s call times. "vs control": slice by slice against weft with its',
        'backend up, the median difference in µs (slices slower / slices). slowest: the slowest single call of all slices.',
        'loop delay max: the longest the event loop ran late during any slice (monitorEventLoopDelay, 1 ms resolution).',
        'CPU: the child process over the slice\'s calls, including what weft\'s exporter did meanwhile.',
      ],
    );
  }
  const rows = FAULT_CONFIGS.filter((c) => c !== 'none').map((config) => {
    const { stats, received, errors } = totals(result, config);
    const held = stats.spansEnded - stats.spansExported - stats.spansDropped;
    return [
      LABEL[config],
      int(stats.spansEnded),
      int(stats.spansExported),
      int(stats.spansDropped),
      int(held),
      int(stats.exportFailures),
      received === undefined ? '-' : int(received),
      errors.length > 0 ? `FAILED: ${errors[0]}` : 'ok',
    ];
  });
  printTable(
    'What each backend got, once it had recovered and weft had flushed',
    ['configuration', 'spans ended', 'exported', 'dropped (counted)', 'still held', 'failed requests', 'backend received', 'finish'],
    rows,
    [
      'After the slices every backend recovers (the refusing one starts listening on its port) and weft flushes until it holds',
      'nothing (up to 60 s). Ended = exported + dropped + still held; "backend received": distinct spans the backend took.',
      'What weft dropped while the backend was down is what its bounded queue could not hold, counted.',
    ],
  );
}

/**
 * One goal line per fault: no stall (median and p99 not slower than the control beyond chance); and per backend, once
 * it recovers, every span received or counted as dropped: nothing lost silently.
 */
export function faultGoals(result: FaultResult): { goal: string; measured: string; verdict: 'PASS' | 'FAIL' | 'UNKNOWN' }[] {
  const checks: { goal: string; measured: string; verdict: 'PASS' | 'FAIL' | 'UNKNOWN' }[] = [];
  for (const config of FAULTS) {
    const parts: string[] = [];
    let stalled = false;
    let enough = true;
    for (const mode of MODES) {
      const med = versusControl(result, config, mode, (s) => s.medianUs);
      const p99 = versusControl(result, config, mode, (s) => s.p99Us);
      enough &&= med.pairs >= 5;
      stalled ||= med.p < SIGNIFICANT || p99.p < SIGNIFICANT;
      parts.push(`${mode}: median ${signed(med.median)} µs (slower in ${med.slower}/${med.pairs}), p99 ${signed(p99.median)} µs (${p99.slower}/${p99.pairs})`);
    }
    checks.push({
      goal: `no stall with the trace backend ${config === 'down' ? 'down' : config}`,
      measured: parts.join('; '),
      verdict: !enough ? 'UNKNOWN' : stalled ? 'FAIL' : 'PASS',
    });
  }
  for (const config of FAULT_CONFIGS.filter((c) => c !== 'none')) {
    const { stats, received, errors } = totals(result, config);
    const unaccounted = stats.spansEnded - stats.spansDropped - (received ?? 0);
    checks.push({
      goal: `backend ${config}, once it recovers: every span received or counted as dropped`,
      measured: `of ${int(stats.spansEnded)} spans ended, ${int(received ?? 0)} received and ${int(stats.spansDropped)} counted as dropped`,
      verdict: received === undefined || errors.length > 0 ? 'UNKNOWN' : unaccounted === 0 ? 'PASS' : 'FAIL',
    });
  }
  return checks;
}
