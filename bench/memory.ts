import { createServer } from 'node:net';
import { runChild } from './lib/child.js';
import { fmt } from './lib/stats.js';
import { printTable } from './lib/table.js';

export interface MemoryOptions {
  calls: number;
  parallel: number;
}

interface Sample {
  calls: number;
  rssMB: number;
  heapUsedMB: number;
}

/** One child run, as written to the JSON file. */
export interface MemoryRun {
  config: 'none' | 'weft';
  ok: boolean;
  detail: string;
  samples: Sample[];
  dropped: number | null;
  /** The register() handle's counters at the end (weft only). */
  stats?: Record<string, number> | null;
}

/** A port on 127.0.0.1 that nothing listens on: bound once, then released. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Runs the calls uninstrumented and with weft exporting to a dead backend, sampling memory after GC. */
export async function benchMemory(opts: MemoryOptions, log: (s: string) => void): Promise<MemoryRun[]> {
  const deadOrigin = `http://127.0.0.1:${await deadPort()}`;
  const checkpoints = [0.1, 0.25, 0.5, 0.75, 1].map((f) => Math.round((opts.calls * f) / opts.parallel) * opts.parallel);
  const runs: MemoryRun[] = [];
  for (const config of ['none', 'weft'] as const) {
    const job = { config, calls: opts.calls, parallel: opts.parallel, checkpoints, deadOrigin };
    const outcome = await runChild<{ samples: Sample[]; dropped: number | null; stats: Record<string, number> | null }>('memory.cjs', job, {
      nodeArgs: ['--expose-gc'],
      timeoutMs: 240_000,
    });
    runs.push(
      outcome.ok ? { config, ok: true, detail: '', ...outcome.value } : { config, ok: false, detail: outcome.error, samples: [], dropped: null },
    );
    log(`  ${config}: ${outcome.ok ? 'done' : outcome.error}`);
  }
  return runs;
}

/** Prints RSS and heap at each checkpoint, side by side, and the spans weft counted as dropped. */
export function printMemory(runs: MemoryRun[], opts: MemoryOptions): void {
  const none = runs.find((r) => r.config === 'none');
  const weft = runs.find((r) => r.config === 'weft');
  const rows = (weft?.samples.length ? weft.samples : (none?.samples ?? [])).map((s, i) => {
    const n = none?.samples[i];
    const w = weft?.samples[i];
    return [
      String(s.calls),
      fmt(n?.rssMB ?? Number.NaN, 1),
      fmt(n?.heapUsedMB ?? Number.NaN, 1),
      fmt(w?.rssMB ?? Number.NaN, 1),
      fmt(w?.heapUsedMB ?? Number.NaN, 1),
    ];
  });
  const notes = [
    `${opts.calls} chat calls through the real openai client (in-process fetch, ${opts.parallel} at a time); the trace backend refuses connections.`,
    weft?.ok
      ? `weft's handle at the end: ${Object.entries(weft.stats ?? {})
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`
      : `weft FAILED: ${weft?.detail}`,
  ];
  if (none && !none.ok) notes.push(`uninstrumented run FAILED: ${none.detail}`);
  printTable(
    'Memory with the backend down (after GC)',
    ['calls', 'uninstrumented RSS MB', 'heap MB', 'weft RSS MB', 'heap MB'],
    rows,
    notes,
  );
}
