import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** A `--data` file path in a fresh temporary folder, which is removed when the test finishes. */
export function tempDataFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'weft-dev-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'data.jsonl');
}

/** The records of a data file, one JSON text each. */
export const dataLines = (file: string): string[] => readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
