import { resolve } from 'node:path';
import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
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
    /** The file's length: where a line the disk had no room for is cut back to. */
    private size: number,
  ) {
    this.fd = fd;
  }

  /** How many records (lines) the file holds, for deciding when to compact it. */
  get lines(): number {
    return this.lineCount;
  }

  /** Reads the mutations in `file` (if it exists) and opens it for appending. */
  static open(file: string): { log: MutationLog; replay: Replay } {
    takeLock(file);
    try {
      return MutationLog.openLocked(file);
    } catch (error) {
      releaseLock(file);
      throw error;
    }
  }

  private static openLocked(file: string): { log: MutationLog; replay: Replay } {
    const replay: Replay = { mutations: [], skippedLines: 0 };
    let keepBytes = 0;
    let lines = 0;
    let tail = '';
    if (existsSync(file)) {
      const text = readFileSync(file);
      let start = 0;
      while (start < text.length) {
        const end = text.indexOf(10, start);
        if (end === -1) {
          // No newline: the last write was cut short.
          replay.skippedLines++;
          tail = text.subarray(start, start + RECORD_START.length).toString('utf8');
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
    // Whole lines, and not one record among them (a torn last line aside, which a crash in the first write leaves):
    // not weft dev's file (`--data package-lock.json`). Refused before anything is cut from it, or rewritten.
    if (lines > 0 && !replay.mutations.some(isRecordShaped)) refuseForeignFile(file, lines);
    // Nothing but a line without its end: a torn record of weft dev's begins as every record does, anything else is
    // another program's file (a minified JSON, a binary), which the cut below would empty.
    if (lines === 0 && tail !== '' && !(RECORD_START.startsWith(tail) || tail.startsWith(RECORD_START))) refuseForeignFile(file, 1);
    const fd = openSync(file, 'a+');
    ftruncateSync(fd, keepBytes);
    return { log: new MutationLog(file, fd, lines, keepBytes), replay };
  }

  /**
   * Appends one mutation as one line. A write the disk has no room for throws, with the part of the line it wrote
   * cut off again: the next line must not be glued to a torn one, which replay would skip, losing a write that was
   * answered.
   */
  append(mutation: DevRecord): void {
    if (this.fd === undefined) return;
    try {
      this.size += writeAll(this.fd, `${JSON.stringify(mutation)}\n`);
    } catch (error) {
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        // The error that matters is the write's.
      }
      throw error;
    }
    this.lineCount++;
  }

  /** Replaces the log with the given mutations (write a new file, then rename over the old one). */
  rewrite(mutations: Iterable<DevRecord>): void {
    const temp = `${this.file}.compact`;
    const fd = openSync(temp, 'w');
    let lines = 0;
    let size = 0;
    try {
      for (const m of mutations) {
        size += writeAll(fd, `${JSON.stringify(m)}\n`);
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
    this.size = size;
  }

  /** Flushes and closes the file, and lets another weft dev have it. */
  close(): void {
    if (this.fd === undefined) return;
    try {
      fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
      this.fd = undefined;
      releaseLock(this.file);
    }
  }
}

/** How every line weft dev writes begins: `JSON.stringify({ kind, … })`. */
const RECORD_START = '{"kind":"';

/** A line weft dev wrote: an object naming its kind of record. */
function isRecordShaped(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string';
}

/** Stops weft dev from starting on a data file it did not write, which it would otherwise rewrite. */
function refuseForeignFile(file: string, lines: number): never {
  throw new Error(
    `weft dev: --data ${file} holds no record of weft dev's (${lines} line(s), none of them one); not starting, so as not to overwrite it. Give --data a new file, or one weft dev wrote.`,
  );
}

/** Writes all of `text` (a write may take only part of it), returning its length in bytes. */
function writeAll(fd: number, text: string): number {
  const bytes = Buffer.from(text);
  for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
  return bytes.length;
}

/**
 * One weft dev per data file: a second one appending to it would lose its writes at the first's next compaction
 * (which renames a new file over the one the second still appends to). `FILE.lock` holds the owner's pid; one left
 * by a process that is gone (killed) is taken over.
 */
function takeLock(file: string): void {
  const lock = `${file}.lock`;
  // Two services of one process (tests, an app's own) are two weft devs too: the lock's pid cannot tell them apart.
  if (locksHeldHere.has(resolve(file))) {
    throw new Error(`weft dev: --data ${file} is in use by another weft dev of this process; close it first, or give this one another file.`);
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      locksHeldHere.add(resolve(file));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number(readFileSync(lock, 'utf8').trim());
    if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
      throw new Error(`weft dev: --data ${file} is in use by another weft dev (pid ${owner}); stop it, or give this one another file (if no weft dev runs, delete ${lock}).`);
    }
    // Left by a weft dev that is gone: take it over.
    rmSync(lock, { force: true });
  }
  throw new Error(`weft dev: --data ${file}: could not take ${lock}.`);
}

/** The data files this process's weft devs hold, by absolute path. */
const locksHeldHere = new Set<string>();

function releaseLock(file: string): void {
  locksHeldHere.delete(resolve(file));
  try {
    const lock = `${file}.lock`;
    if (readFileSync(lock, 'utf8').trim() === String(process.pid)) rmSync(lock, { force: true });
  } catch {
    // Already gone.
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
