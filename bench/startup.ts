import { runChild } from './lib/child.js';
import type { OtlpSink } from './lib/otlp-sink.js';
import { fmt, median } from './lib/stats.js';
import { printTable } from './lib/table.js';

/** `weft-register` is weft started with `node --import weft/register`, configured from the environment. */
export const STARTUP_CONFIGS = ['none', 'weft', 'weft-register', 'otel', 'arize', 'traceloop'] as const;
export type StartupConfig = (typeof STARTUP_CONFIGS)[number];

export interface StartupOptions {
  rounds: number;
  openai: string;
}

/** One child run, as written to the JSON file. */
export interface StartupRun {
  config: StartupConfig;
  round: number;
  ok: boolean;
  detail: string;
  scriptMs: number;
  sinceProcessStartMs: number;
}

/**
 * Rotates the order of configurations each round, as the per-call bench does: whatever a place in the round costs
 * or saves (first after the previous benchmark, always the same neighbour before it) is spread over all of them.
 */
function orderFor(round: number): StartupConfig[] {
  const k = round % STARTUP_CONFIGS.length;
  return [...STARTUP_CONFIGS.slice(k), ...STARTUP_CONFIGS.slice(0, k)];
}

/** Starts one fresh process per configuration and round, interleaved. */
export async function benchStartup(opts: StartupOptions, sink: OtlpSink, log: (s: string) => void): Promise<StartupRun[]> {
  const runs: StartupRun[] = [];
  for (let round = 0; round < opts.rounds; round++) {
    for (const config of orderFor(round)) {
      const job = { config, openai: opts.openai, urls: { origin: sink.origin, tracesUrl: sink.tracesUrl } };
      const viaRegister = config === 'weft-register';
      const outcome = await runChild<{ scriptMs: number; sinceProcessStartMs: number }>('startup.cjs', job, {
        nodeArgs: viaRegister ? ['--require', 'weft/register'] : [],
        env: viaRegister ? { WEFT_BASE_URL: sink.origin, WEFT_PROJECT: 'bench/bench' } : {},
      });
      runs.push(
        outcome.ok
          ? { config, round, ok: true, detail: '', ...outcome.value }
          : { config, round, ok: false, detail: outcome.error, scriptMs: Number.NaN, sinceProcessStartMs: Number.NaN },
      );
    }
    log(`  round ${round + 1}/${opts.rounds} done`);
  }
  sink.drain();
  return runs;
}

const LABEL: Record<StartupConfig, string> = {
  none: 'uninstrumented (require openai)',
  weft: "weft: require('weft'); register()",
  'weft-register': 'weft: node -r weft/register',
  otel: '@opentelemetry/instrumentation-openai + stock provider',
  arize: '@arizeai/openinference-instrumentation-openai + stock provider',
  traceloop: '@traceloop/instrumentation-openai + stock provider',
};

/** Prints set-up time per configuration and what it adds to the uninstrumented start. */
export function printStartup(runs: StartupRun[], opts: StartupOptions): void {
  const base = median(runs.filter((r) => r.config === 'none' && r.ok).map((r) => r.sinceProcessStartMs));
  printTable(
    `Start-up cost (${opts.openai}, median of ${opts.rounds} fresh processes each)`,
    ['configuration', 'set-up ms (in script)', 'process start → ready ms', 'added ms', 'status'],
    STARTUP_CONFIGS.map((c) => {
      const good = runs.filter((r) => r.config === c && r.ok);
      const failed = runs.find((r) => r.config === c && !r.ok);
      const ready = median(good.map((r) => r.sinceProcessStartMs));
      return [
        LABEL[c],
        c === 'weft-register' ? '-' : fmt(median(good.map((r) => r.scriptMs)), 1),
        fmt(ready, 1),
        c === 'none' ? '-' : fmt(ready - base, 1),
        failed ? `FAILED: ${failed.detail}` : 'ok',
      ];
    }),
    ['Ready = imports done, provider and instrumentation set up, `openai` loaded and patched.'],
  );
}
