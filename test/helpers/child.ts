import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root: child processes run there so that `weft` resolves to the built package. */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunningChild {
  child: ChildProcess;
  /** Resolves when the child prints a line containing `text`. */
  waitForOutput(text: string): Promise<void>;
  /** Resolves when the child has exited. */
  exited: Promise<ChildResult>;
}

/**
 * Starts `node` with the given arguments in the repository root, with the given environment added to a clean
 * copy of this one (weft's own variables removed, so that a developer's settings cannot leak into a test).
 */
export function startNode(args: string[], env: Record<string, string> = {}): RunningChild {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('WEFT_') && !k.startsWith('OTEL_') && !k.startsWith('VITEST')),
  );
  const child = spawn(process.execPath, args, { cwd: repoRoot, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const watchers: Array<{ text: string; resolve: () => void }> = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const w of watchers.splice(0)) {
      if (stdout.includes(w.text)) w.resolve();
      else watchers.push(w);
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<ChildResult>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    child,
    exited,
    waitForOutput(text) {
      if (stdout.includes(text)) return Promise.resolve();
      return new Promise((resolve) => watchers.push({ text, resolve }));
    },
  };
}

/** Runs `node` to completion; see {@link startNode}. */
export function runNode(args: string[], env: Record<string, string> = {}): Promise<ChildResult> {
  return startNode(args, env).exited;
}

/** The counters a fixture printed from its own `exit` listener (test/register/fixtures/print-counters-at-exit.mjs). */
export function countersAtExit(stdout: string): Record<string, number> {
  const line = /at exit (.*)/.exec(stdout);
  if (!line) throw new Error(`the fixture printed no counters at exit:\n${stdout}`);
  return JSON.parse(line[1]!) as Record<string, number>;
}
