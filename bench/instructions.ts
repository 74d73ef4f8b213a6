import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { installedVersion, runChild } from './lib/child.js';
import { spansWithModel, startOtlpSink } from './lib/otlp-sink.js';
import { fmt, ratio } from './lib/stats.js';
import { printTable } from './lib/table.js';
import { CONFIGS, type Config, LABEL, OPENAI_PACKAGES, PEERS } from './percall.js';
import { writeResults } from './lib/results.js';

/**
 * `npm run bench:instructions`: CPU instructions per call, counted by valgrind's callgrind.
 *
 * Wall-clock and CPU time of a call swing by tens of microseconds on a shared 2-core machine, more than what
 * separates the configurations. An instruction count does not depend on the machine's load: each configuration
 * runs the per-call child (in-memory transport, one mode) under callgrind, and the instructions between the end
 * of its warm-up and the end of the flush after its N timed calls, divided by N, are what one call costs, its
 * share of the span export included. Every thread of the process counts (JIT compilers and GC helpers too).
 * It counts work, not waiting: time spent blocked is not in it.
 *
 * Options: `--only=none,weft`, `--openai=openai`, `--modes=stream`, `--warmup=1500`, `--calls=1000`, `--jobs=2` (children at once;
 * counts do not depend on it), `--out=instructions-node24.json` (in bench/results/; default instructions.json, the full run on
 * the CI machine's Node that the README quotes).
 */
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = (arg('only')?.split(',') as Config[] | undefined) ?? [...CONFIGS];
// `--repeat=2` runs each configuration more than once, to see how far its count moves between runs.
const repeat = Number(arg('repeat') ?? 1);
const packages = arg('openai')?.split(',') ?? [...OPENAI_PACKAGES];
const warmup = Number(arg('warmup') ?? 1500);
const calls = Number(arg('calls') ?? 1000);
const jobs = Number(arg('jobs') ?? os.cpus().length);
const ALL_MODES = ['plain', 'stream'] as const;
type Mode = (typeof ALL_MODES)[number];
const MODES = (arg('modes')?.split(',') as Mode[] | undefined) ?? [...ALL_MODES];
const out = arg('out') ?? 'instructions.json';
const log = (s: string) => process.stderr.write(`${s}\n`);

interface Count {
  openai: string;
  config: Config;
  mode: Mode;
  status: 'ok' | 'broken' | 'lost' | 'failed';
  detail: string;
  /** Instructions per timed call, the flush of their spans included; absent unless the run succeeded. */
  instructionsPerCall?: number;
  /** Full GCs that V8 started itself inside the window (the forced one at its end aside): each adds about its cost / calls. */
  fullGCs?: number;
}

/** The total instruction count (`Ir`) of one callgrind dump file. */
function totalInstructions(dumpFile: string): number {
  const line = /^(?:totals|summary):\s+(\d+)/m.exec(readFileSync(dumpFile, 'utf8'));
  if (!line) throw new Error(`no totals in ${dumpFile}`);
  return Number(line[1]);
}

/** Runs started so far: numbers each run's dump files. */
let runs = 0;

/**
 * One child under callgrind. The child marks two points (see `markCounters` in children/percall.cjs), after
 * its warm-up and after its timed calls and flush, and callgrind dumps its counters at each: dump 2 holds the
 * instructions of the timed calls alone.
 */
async function count(openai: string, config: Config, mode: Mode, dir: string): Promise<Count> {
  const sink = await startOtlpSink();
  // Numbered: with --repeat, runs of one configuration go on at the same time and must not share dump files.
  const outFile = join(dir, `${openai}-${config}-${mode}-${++runs}.out`);
  const job = {
    config,
    openai,
    transport: 'memory',
    modes: [mode],
    markCounters: true,
    urls: { origin: sink.origin, tracesUrl: sink.tracesUrl },
    chatBaseURL: 'http://127.0.0.1:9/v1',
    warmup,
    calls,
  };
  const wrapper = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${outFile}`, '--dump-before=getpriority'];
  const base = { openai, config, mode };
  try {
    // Single-threaded: V8 then compiles and collects on the main thread, the same way in every run, rather than
    // on helper threads whose interleaving under valgrind varies from run to run. A large old generation from the
    // start: V8 schedules full GCs from how fast it measures allocation and collection to be, in time, and under
    // valgrind's slowdown Node 24 started 0 to 9 of them in 3,000 streamed calls, depending on the configuration and
    // the run (outside valgrind, 2 or 3 over the whole run, warm-up included). Each puts its whole cost into one
    // count. Without them, every count pays for collecting its garbage in the forced GC at the end of the window, as
    // under Node 20.
    const nodeArgs = ['--expose-gc', '--single-threaded', '--initial-old-space-size=512'];
    const outcome = await runChild<Record<Mode, { fullGCs?: number }>>('percall.cjs', job, { wrapper, nodeArgs, timeoutMs: 60 * 60_000 });
    const tally = sink.drain();
    const makesSpans = config !== 'none' && config !== 'context';
    const expected = makesSpans ? warmup + calls : 0;
    if (!outcome.ok) return { ...base, status: 'failed', detail: outcome.error };
    if (makesSpans && tally.spans.length === 0) return { ...base, status: 'broken', detail: 'exported no spans' };
    const withModel = spansWithModel(tally.spans);
    if (withModel < expected) return { ...base, status: 'lost', detail: `${expected - withModel} of ${expected} spans missing or without a model` };
    if (!existsSync(`${outFile}.2`) || existsSync(`${outFile}.3`)) return { ...base, status: 'failed', detail: 'callgrind did not dump exactly twice' };
    const fullGCs = outcome.value[mode]?.fullGCs;
    return { ...base, status: 'ok', detail: '', instructionsPerCall: totalInstructions(`${outFile}.2`) / calls, fullGCs };
  } finally {
    await sink.close();
  }
}

/** Runs `tasks` with at most `limit` at once, keeping their order in the result. */
async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
  return results;
}

function printCounts(counts: Count[], versions: Record<string, string>): void {
  const k = (n: number) => `${fmt(n / 1000, 1)}k`;
  for (const openai of packages) {
    const of = (config: Config, mode: Mode) => counts.find((c) => c.openai === openai && c.config === config && c.mode === mode);
    const added = (config: Config, mode: Mode) => {
      const c = of(config, mode);
      const none = of('none', mode);
      return c?.instructionsPerCall !== undefined && none?.instructionsPerCall !== undefined ? c.instructionsPerCall - none.instructionsPerCall : Number.NaN;
    };
    const best = (mode: Mode) => {
      const exported = PEERS.map((p) => added(p, mode)).filter(Number.isFinite);
      return exported.length ? Math.min(...exported) : Number.NaN;
    };
    const rows = only
      .filter((c) => of(c, 'plain') || of(c, 'stream'))
      .map((config) => {
        const cells = MODES.flatMap((mode) => {
          const c = of(config, mode);
          if (c?.instructionsPerCall === undefined) return ['-', '-', '-'];
          const a = added(config, mode);
          return [k(c.instructionsPerCall), config === 'none' ? '-' : k(a), config === 'none' ? '-' : ratio(a / best(mode))];
        });
        const bad = MODES.map((m) => of(config, m)).find((c) => c && c.status !== 'ok');
        const fullGCs = MODES.map((m) => of(config, m)?.fullGCs ?? '-').join(' / ');
        return [LABEL[config] ?? config, ...cells, fullGCs, bad ? `${bad.status.toUpperCase()}: ${bad.detail}` : 'ok'];
      });
    printTable(
      `Instructions per call (callgrind, in-memory fetch): ${openai}@${versions[openai] ?? '?'}, after ${warmup} warm-up calls, over ${calls} calls`,
      ['configuration', ...MODES.flatMap((m) => [m === 'plain' ? 'plain' : 'streamed', 'added', 'vs best peer']), 'full GCs', 'exported'],
      rows,
      [
        'Counted, not timed: the figures do not move with the machine\'s load. The flush that exports the spans is included.',
        'Full GCs: those V8 started inside the window, per mode. Each adds its whole cost to that count; compare counts with the same number.',
      ],
    );
  }
}

async function main(): Promise<void> {
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    throw new Error('valgrind was not found on PATH: install it (Debian: apt-get install valgrind) to count instructions');
  }
  const started = Date.now();
  const dir = mkdtempSync(join(os.tmpdir(), 'weft-callgrind-'));
  try {
    const tasks = packages.flatMap((openai) =>
      only.flatMap((config) =>
        MODES.flatMap((mode) => Array.from({ length: repeat }, () => mode)).map((mode) => async () => {
          const c = await count(openai, config, mode, dir);
          const counted = ` ${Math.round(c.instructionsPerCall ?? 0)} instructions/call, ${c.fullGCs ?? '?'} full GC(s) in the window`;
          log(`  ${openai} ${config} ${mode}: ${c.status}${c.instructionsPerCall ? counted : ` (${c.detail})`}`);
          return c;
        }),
      ),
    );
    log(`counting instructions: ${tasks.length} runs under callgrind, ${jobs} at a time…`);
    const counts = await pool(tasks, jobs);
    const versions = Object.fromEntries(packages.map((p) => [p, installedVersion(p)]));
    printCounts(counts, versions);
    writeResults(out, {
      machine: { date: new Date().toISOString(), node: process.version, valgrind: spawnSync('valgrind', ['--version']).stdout.toString().trim() },
      options: { warmup, calls, only, packages },
      versions,
      counts,
      elapsedSeconds: (Date.now() - started) / 1000,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exitCode = 1;
});
