import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import type { DevRecord } from './records.js';

/** What was read back from a data file. */
export interface Replay {
  mutations: DevRecord[];
  /** Lines that did not parse (a torn last line after a crash, or damage). */
  skippedLines: number;
}

/**
 * The `--data` file: an append-only JSONL log of records (trace mutations and training changes). Each write is one line written with a
 * single `write`, so a crash loses at most the line being written; on open, a torn last line is cut off
 * before new lines are appended after it.
 */
export class MutationLog {
  private fd: number | undefined;

  private constructor(
    private readonly file: string,
    fd: number,
    private lineCount: number,
  ) {
    this.fd = fd;
  }

  /** How many records (lines) the file holds, for deciding when to compact it. */
  get lines(): number {
    return this.lineCount;
  }

  /** Reads the mutations in `file` (if it exists) and opens it for appending. */
  static open(file: string): { log: MutationLog; replay: Replay } {
    const replay: Replay = { mutations: [], skippedLines: 0 };
    let keepBytes = 0;
    let lines = 0;
    if (existsSync(file)) {
      const text = readFileSync(file);
      let start = 0;
      while (start < text.length) {
        const end = text.indexOf(10, start);
        if (end === -1) {
          // No newline: the last write was cut short.
          replay.skippedLines++;
          break;
        }
        const line = text.subarray(start, end).toString('utf8');
        start = end + 1;
        keepBytes = start;
        if (line.trim() === '') continue;
        lines++;
        try {
          replay.mutations.push(JSON.parse(line) as DevRecord);
        } catch {
          replay.skippedLines++;
        }
      }
    }
    // A file with lines and not one record in them is not weft dev's (`--data package-lock.json`): replaying it
    // would rewrite it empty.
    if (replay.mutations.length === 0 && replay.skippedLines > 0) refuseForeignFile(file, replay.skippedLines);
    const fd = openSync(file, 'a+');
    ftruncateSync(fd, keepBytes);
    return { log: new MutationLog(file, fd, lines), replay };
  }

  /** Appends one mutation as one line. */
  append(mutation: DevRecord): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, `${JSON.stringify(mutation)}\n`);
    this.lineCount++;
  }

  /** Replaces the log with the given mutations (write a new file, then rename over the old one). */
  rewrite(mutations: Iterable<DevRecord>): void {
    const temp = `${this.file}.compact`;
    const fd = openSync(temp, 'w');
    let lines = 0;
    try {
      for (const m of mutations) {
        writeSync(fd, `${JSON.stringify(m)}\n`);
        lines++;
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (this.fd !== undefined) closeSync(this.fd);
    renameSync(temp, this.file);
    this.fd = openSync(this.file, 'a');
    this.lineCount = lines;
  }

  /** Flushes and closes the file. */
  close(): void {
    if (this.fd === undefined) return;
    try {
      fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }
}

/** Stops weft dev from starting on a data file it did not write, which it would otherwise rewrite. */
export function refuseForeignFile(file: string, unreadable: number): never {
  throw new Error(
    `weft dev: --data ${file} holds no record of weft dev's (${unreadable} unreadable line(s)); not starting, so as not to overwrite it. Give --data a new file, or one weft dev wrote.`,
  );
}
