import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Writes a benchmark's raw runs to bench/results/<name> and says where they went. */
export function writeResults<T extends { elapsedSeconds: number }>(name: string, results: T): void {
  const dir = fileURLToPath(new URL('../results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}${name}`, `${JSON.stringify(results, null, 1)}\n`);
  process.stdout.write(`\nraw runs: bench/results/${name} (${results.elapsedSeconds.toFixed(0)} s)\n`);
}
