import { createRequire } from 'node:module';
import os from 'node:os';
import { startChatServer } from './lib/chat-server.js';
import { startOtlpSink } from './lib/otlp-sink.js';
import { writeResults } from './lib/results.js';
import { benchFaults, type FaultOptions, type FaultResult, printFaults } from './faults.js';
import { checkGoals } from './goals.js';
import { benchMemory, type MemoryOptions, type MemoryRun, printMemory } from './memory.js';
import { benchPerCall, type Config, type PerCallResult, printPerCall } from './percall.js';
import { benchStartup, printStartup, type StartupOptions, type StartupRun } from './startup.js';
import { benchThroughput, printThroughput, type ThroughputOptions, type ThroughputRun } from './throughput.js';

const { inputMessagesBytes } = createRequire(import.meta.url)('./children/span-shape.cjs') as { inputMessagesBytes: number };

/**
 * `npm run bench [-- --quick]`: weft against its peers. Prints one table per benchmark and writes every raw
 * run to bench/results/latest.json. `--quick` is a smoke run: the same steps with far fewer calls.
 */
const quick = process.argv.includes('--quick');
// `--only none,weft` runs the per-call benchmark for those configurations only (while developing).
const onlyArg = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const only = onlyArg ? (onlyArg.split(',') as Config[]) : undefined;
// `--per-call-only` skips the other benchmarks.
const perCallOnly = process.argv.includes('--per-call-only');
/** The benchmarks, in the order they run. */
const PARTS = ['per-call', 'throughput', 'startup', 'memory', 'faults'] as const;
type Part = (typeof PARTS)[number];
// `--parts=throughput,memory` runs only those benchmarks (while developing, or to re-measure one part). Such a
// run writes bench/results/<parts>.json: latest.json always holds one full run of everything.
const parts = selectedParts(process.argv.find((a) => a.startsWith('--parts='))?.slice('--parts='.length));
const partial = parts.length < PARTS.length;
const log = (s: string) => process.stderr.write(`${s}\n`);

function selectedParts(arg: string | undefined): Part[] {
  if (arg === undefined) return [...PARTS];
  const names = arg.split(',');
  const unknown = names.filter((n) => !(PARTS as readonly string[]).includes(n));
  if (unknown.length > 0) throw new Error(`unknown part ${unknown.join(', ')}; parts are ${PARTS.join(', ')}`);
  return PARTS.filter((p) => names.includes(p));
}

const machine = {
  date: new Date().toISOString(),
  node: process.version,
  platform: `${os.platform()} ${os.release()} ${os.arch()}`,
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.cpus().length,
  memoryGB: Math.round(os.totalmem() / 2 ** 30),
  loadAverage: os.loadavg(),
  quick,
};

async function main(): Promise<void> {
  const started = Date.now();
  process.stdout.write(
    `weft bench${quick ? ' (--quick: smoke run, figures are not meaningful)' : ''}${partial ? ` (only ${parts.join(', ')})` : ''}\n${machine.date}, Node ${machine.node}, ${machine.cores} × ${machine.cpu}, load ${machine.loadAverage.map((l) => l.toFixed(2)).join(' ')}\n`,
  );
  const chat = await startChatServer();
  const sink = await startOtlpSink();
  try {
    let perCall: PerCallResult | undefined;
    if (parts.includes('per-call')) {
      log('per-call overhead…');
      // Long warm-ups: each configuration is measured JIT-compiled, as in a service that has been up a while.
      const perCallOptions = quick
        ? { processes: 1, slices: 3, counts: { loopback: { warmup: 50, calls: 100 }, memory: { warmup: 200, calls: 300 } } }
        : { processes: 4, slices: 5, counts: { loopback: { warmup: 1500, calls: 300 }, memory: { warmup: 4000, calls: 2000 } } };
      perCall = await benchPerCall({ ...perCallOptions, only }, chat, sink, log);
      printPerCall(perCall);
      if (perCallOnly) {
        const goals = checkGoals(perCall, undefined);
        // Named by Node major, so a run on another Node version never replaces the full run's latest.json.
        writeResults(`per-call-node${process.versions.node.split('.')[0]}.json`, { machine, elapsedSeconds: (Date.now() - started) / 1000, perCall, goals });
        return;
      }
    }

    let throughput: { options: ThroughputOptions; runs: ThroughputRun[] } | undefined;
    if (parts.includes('throughput')) {
      log('export throughput…');
      // A run takes about two seconds; on a shared 2-core machine a round can swing by 30%, so it takes many rounds
      // for a difference to show beyond chance.
      const options = quick ? { rounds: 2, spans: 4000, burst: 100, queue: 2048 } : { rounds: 15, spans: 30_000, burst: 100, queue: 2048 };
      throughput = { options, runs: await benchThroughput(options, sink, log) };
      printThroughput(throughput.runs, options, inputMessagesBytes);
    }

    let startup: { options: StartupOptions; runs: StartupRun[] } | undefined;
    if (parts.includes('startup')) {
      log('start-up…');
      const startupOptions = { rounds: quick ? 2 : 7, openai: 'openai' };
      startup = { options: startupOptions, runs: await benchStartup(startupOptions, sink, log) };
      printStartup(startup.runs, startupOptions);
    }

    let memory: { options: MemoryOptions; runs: MemoryRun[] } | undefined;
    if (parts.includes('memory')) {
      log('memory with the backend down…');
      // weft's default batch settings, given explicitly: the bound and timeout printed are then the ones the run used.
      const batch = { maxQueueSize: 2048, maxRetrySpans: 2048, maxExportBatchSize: 512, exportTimeoutMillis: 10_000 };
      const options = { calls: quick ? 10_000 : 100_000, parallel: 50, batch };
      memory = { options, runs: await benchMemory(options, log) };
      printMemory(memory.runs, options);
    }

    let faults: FaultResult | undefined;
    if (parts.includes('faults')) {
      log('calls while the trace backend misbehaves…');
      const options: FaultOptions = quick ? { processes: 1, slices: 2, warmup: 100, calls: 200 } : { processes: 2, slices: 6, warmup: 1000, calls: 2000 };
      faults = await benchFaults(options, chat, log);
      printFaults(faults);
    }

    const goals = checkGoals(perCall, throughput?.runs, faults);

    const results = { machine, parts, elapsedSeconds: (Date.now() - started) / 1000, perCall, throughput, startup, memory, faults, goals };
    writeResults(partial ? `${parts.join('-')}.json` : 'latest.json', results);
  } finally {
    await chat.close();
    await sink.close();
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exitCode = 1;
});
