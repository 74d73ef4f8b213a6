import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of a script in bench/children/. */
export function childScript(name: string): string {
  return fileURLToPath(new URL(`../children/${name}`, import.meta.url));
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The parent's environment without anything that would configure weft or OpenTelemetry behind the bench's back. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(WEFT_|OTEL_|OPENAI_|NODE_OPTIONS$)/.test(k)) env[k] = v;
  }
  return { ...env, ...extra };
}

/** Version of an installed package, read from disk: `openai` does not export its package.json. */
export function installedVersion(name: string): string {
  const entry = createRequire(import.meta.url).resolve(name);
  return (JSON.parse(readFileSync(join(dirname(entry), 'package.json'), 'utf8')) as { version: string }).version;
}

/** The first line of a child's stderr that reads like an error, else its last non-empty line. */
function firstError(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /^(\w*Error|Error)\b|^\w+Error:/.test(l)) ?? lines.at(-1) ?? 'no output';
}

/** Outcome of one child run: its last stdout line parsed as JSON, or the reason there is none. */
export type ChildOutcome<T> = { ok: true; value: T; stderr: string } | { ok: false; error: string; stderr: string };

/** How to start a child besides its script and job. */
export interface ChildOptions {
  nodeArgs?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
  /** A command that runs node, e.g. `['valgrind', '--tool=callgrind']`: the child is `wrapper… node …`. */
  wrapper?: string[];
}

/** `node [nodeArgs] bench/children/<script>`, run from the repository root so that `require('weft')` finds the built package. */
function spawnChild(script: string, job: unknown, options: ChildOptions, ipc: boolean) {
  const { nodeArgs = [], env = {}, wrapper = [] } = options;
  const command = [...wrapper, process.execPath, ...nodeArgs, childScript(script)];
  return spawn(command[0]!, command.slice(1), {
    cwd: REPO_ROOT,
    env: cleanEnv({ ...env, BENCH_JOB: JSON.stringify(job) }),
    stdio: ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs a child script with `job` in BENCH_JOB, and reads the JSON line it prints. */
export function runChild<T>(script: string, job: unknown, options: ChildOptions = {}): Promise<ChildOutcome<T>> {
  const { timeoutMs = 120_000 } = options;
  return new Promise((resolve) => {
    const child = spawnChild(script, job, options, false);
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString('utf8');
    });
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const last = out.trim().split('\n').pop() ?? '';
      if (code === 0 && last.startsWith('{')) {
        try {
          resolve({ ok: true, value: JSON.parse(last) as T, stderr: err });
          return;
        } catch {
          // falls through to the failure below
        }
      }
      const why = signal ? `killed by ${signal}` : `exit code ${code}`;
      resolve({ ok: false, error: `${why}: ${firstError(err)}`, stderr: err });
    });
  });
}

/** A child that stays up and answers one message at a time over IPC (see `serve` in children/percall.cjs). */
export interface ServingChild {
  /** Sends `message` and resolves with the child's reply; rejects if the child dies or takes longer than the timeout. */
  ask<T>(message: unknown): Promise<T>;
  /** Ends the child, whatever state it is in. */
  kill(): void;
}

/**
 * Starts a child script with `job` in BENCH_JOB and an IPC channel, and resolves once it has sent `{ ready: true }`
 * (or rejects with the reason it did not: an exit, a crash, the timeout).
 */
export function serveChild(script: string, job: unknown, options: ChildOptions = {}): Promise<ServingChild> {
  const { timeoutMs = 120_000 } = options;
  const child = spawnChild(script, job, options, true);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
  });
  child.stdout?.resume();
  // Set once the child has gone: asking it then fails at once, rather than waiting for an exit that already happened.
  let gone: string | undefined;
  child.once('exit', (code, signal) => {
    gone = `${signal ? `killed by ${signal}` : `exit code ${code}`}: ${firstError(stderr)}`;
  });
  const next = <T>(): Promise<T> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`no answer in ${timeoutMs} ms: ${firstError(stderr)}`));
      }, timeoutMs);
      const onExit = () => {
        clearTimeout(timer);
        child.off('message', onMessage);
        reject(new Error(gone));
      };
      const onMessage = (message: unknown) => {
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve(message as T);
      };
      child.once('message', onMessage);
      child.once('exit', onExit);
    });
  const serving: ServingChild = {
    ask<T>(message: unknown) {
      if (gone !== undefined) return Promise.reject(new Error(gone));
      const reply = next<T>();
      // With a callback, a channel that closed meanwhile is reported here instead of as an 'error' event nobody handles.
      child.send(message as object, (error) => {
        if (error) child.kill('SIGKILL');
      });
      return reply;
    },
    kill: () => child.kill('SIGKILL'),
  };
  return next<{ ready: true }>().then(() => serving);
}
