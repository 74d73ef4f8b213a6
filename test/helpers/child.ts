import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root: child processes run there so that `weft` resolves to the built package. */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * How long a child may run before it is killed, by default. Far above what any test's child needs (a few
 * seconds), and below what a CI job tolerates: a hung child fails its test with a clear error instead of
 * running on after it, or holding the test run open.
 */
export const DEFAULT_CHILD_TIMEOUT_MS = 60_000;
/** How long {@link RunningChild.waitForOutput} waits, by default. */
export const DEFAULT_OUTPUT_TIMEOUT_MS = 30_000;

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface NodeOptions {
  /** Kill the child (and every process it started) after this long, failing `exited`. Default {@link DEFAULT_CHILD_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Give the child a stdin pipe (`child.stdin`) instead of none, for a test that steps the child along. */
  stdin?: boolean;
}

export interface RunningChild {
  child: ChildProcess;
  /**
   * Resolves when the child prints a line containing `text`; rejects, and kills the child, when it has not
   * after `timeoutMs` (default {@link DEFAULT_OUTPUT_TIMEOUT_MS}); rejects when the child exits without it.
   */
  waitForOutput(text: string, timeoutMs?: number): Promise<void>;
  /** Resolves when the child has exited; rejects when it had to be killed for running past its time limit. */
  exited: Promise<ChildResult>;
}

/** Children still running, killed when the test process ends so that none outlives a failed or stopped run. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) killTree(child);
});

/**
 * Kills the child and whatever it started: it leads its own process group (`detached`), so that a child that
 * spawned another (the demo runs the quickstart) leaves nothing behind.
 */
function killTree(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/**
 * Starts `node` with the given arguments in the repository root, with the given environment added to a clean
 * copy of this one (weft's own variables removed, so that a developer's settings cannot leak into a test).
 */
export function startNode(args: string[], env: Record<string, string> = {}, options: NodeOptions = {}): RunningChild {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('WEFT_') && !k.startsWith('OTEL_') && !k.startsWith('VITEST')),
  );
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...base, ...env },
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  let ended = false;
  const describe = () => `node ${args.join(' ')}`;
  const output = () => `\n--- stdout ---\n${stdout.slice(-4000)}\n--- stderr ---\n${stderr.slice(-4000)}`;
  const watchers = new Set<{ text: string; resolve: () => void; reject: (error: Error) => void }>();
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const w of watchers) if (stdout.includes(w.text)) w.resolve();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHILD_TIMEOUT_MS;
  const exited = new Promise<ChildResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      killTree(child);
      reject(new Error(`${describe()} was still running after ${timeoutMs} ms and was killed${output()}`));
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      ended = true;
      running.delete(child);
      for (const w of watchers) w.reject(new Error(`${describe()} exited (${signal ?? code}) without printing "${w.text}"${output()}`));
      resolve({ code, signal, stdout, stderr });
    });
  });
  // A caller that never awaits `exited` (it only waits for output) must not get an unhandled rejection from it.
  exited.catch(() => {});
  return {
    child,
    exited,
    waitForOutput(text, waitMs = DEFAULT_OUTPUT_TIMEOUT_MS) {
      if (stdout.includes(text)) return Promise.resolve();
      if (ended) return Promise.reject(new Error(`${describe()} exited without printing "${text}"${output()}`));
      return new Promise((resolve, reject) => {
        const watcher = {
          text,
          resolve: () => {
            clearTimeout(timer);
            watchers.delete(watcher);
            resolve();
          },
          reject: (error: Error) => {
            clearTimeout(timer);
            watchers.delete(watcher);
            reject(error);
          },
        };
        const timer = setTimeout(() => {
          killTree(child);
          watcher.reject(new Error(`${describe()} did not print "${text}" within ${waitMs} ms and was killed${output()}`));
        }, waitMs);
        watchers.add(watcher);
      });
    },
  };
}

/** Runs `node` to completion; see {@link startNode}. */
export function runNode(args: string[], env: Record<string, string> = {}, options: NodeOptions = {}): Promise<ChildResult> {
  return startNode(args, env, options).exited;
}

/** The counters a fixture printed from its own `exit` listener (test/register/fixtures/print-counters-at-exit.mjs). */
export function countersAtExit(stdout: string): Record<string, number> {
  const line = /at exit (.*)/.exec(stdout);
  if (!line) throw new Error(`the fixture printed no counters at exit:\n${stdout}`);
  return JSON.parse(line[1]!) as Record<string, number>;
}
