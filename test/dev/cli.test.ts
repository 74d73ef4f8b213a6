import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNode, startNode } from '../helpers/child.js';

// These run the built command (`npm run build` first), exactly as `npx weft dev` would.
const CLI = 'dist/cli.js';

describe('the weft command', () => {
  it('starts weft dev, prints where it listens, serves, and exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-cli-'));
    try {
      const { running, url } = await startDev(['--port', '0', '--data', join(dir, 'data.jsonl'), '--max-traces', '5']);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      running.child.kill('SIGTERM');
      const result = await running.exited;
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`${url}/otel/v1/traces`);
      expect(result.stdout).toContain('data.jsonl (append-only)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the address it could not listen on when another process holds it, and exits 1', async () => {
    const { running, url } = await startDev(['--port', '0']);
    try {
      const port = new URL(url).port;
      const result = await runNode([CLI, 'dev', '--port', port]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`weft: 127.0.0.1:${port} is already in use`);
      expect(result.stderr).toContain('--port N');
    } finally {
      running.child.kill('SIGTERM');
      await running.exited;
    }
  });

  it('prints the variables that point all three clients at it when it is not on the default port', async () => {
    const { running, url } = await startDev(['--port', '0']);
    running.child.kill('SIGTERM');
    const result = await running.exited;
    expect(result.stdout).toContain(
      [`    WEFT_BASE_URL=${url}`, `    WEFT_INFERENCE_BASE_URL=${url}/v1`, `    WEFT_TRAINING_BASE_URL=${url}/training/v1`].join('\n'),
    );
  });

  it('requires the key given with --api-key and does not print it', async () => {
    const { running, url } = await startDev(['--port', '0', '--api-key', 'sekret-42']);
    const denied = await fetch(`${url}/calls/query_stats`, { method: 'POST', body: '{"project_id":"a/b"}' });
    const allowed = await fetch(`${url}/calls/query_stats`, {
      method: 'POST',
      headers: { authorization: 'Bearer sekret-42', 'content-type': 'application/json' },
      body: '{"project_id":"a/b"}',
    });
    running.child.kill('SIGTERM');
    const result = await running.exited;
    expect([denied.status, allowed.status]).toEqual([401, 200]);
    expect(result.stdout + result.stderr).not.toContain('sekret-42');
  });

  it('takes the key from WEFT_DEV_API_KEY too, keeping it off the command line', async () => {
    const { running, url } = await startDev(['--port', '0'], { WEFT_DEV_API_KEY: 'sekret-from-env' });
    const denied = await fetch(`${url}/calls/query_stats`, { method: 'POST', body: '{"project_id":"a/b"}' });
    const allowed = await fetch(`${url}/calls/query_stats`, {
      method: 'POST',
      headers: { authorization: 'Bearer sekret-from-env', 'content-type': 'application/json' },
      body: '{"project_id":"a/b"}',
    });
    running.child.kill('SIGTERM');
    const result = await running.exited;
    expect([denied.status, allowed.status]).toEqual([401, 200]);
    expect(result.stdout).toContain('Bearer key required');
    expect(result.stdout + result.stderr).not.toContain('sekret-from-env');
  });

  it('explains a bad flag value and exits 2', async () => {
    const result = await runNode([CLI, 'dev', '--port', 'eighty']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--port must be an integer from 0 to 65535, got "eighty"');
  });

  it('refuses a --data file another weft dev is using, and takes it once that one has stopped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-cli-'));
    const file = join(dir, 'data.jsonl');
    try {
      const first = await startDev(['--port', '0', '--data', file]);
      const second = await runNode([CLI, 'dev', '--port', '0', '--data', file]);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`--data ${file} is in use by another weft dev (pid ${first.running.child.pid})`);
      first.running.child.kill('SIGTERM');
      expect((await first.running.exited).code).toBe(0);
      const third = await startDev(['--port', '0', '--data', file]);
      third.running.child.kill('SIGTERM');
      expect((await third.running.exited).code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an empty --host or --data, which an unset shell variable gives, and exits 2', async () => {
    for (const flag of ['--host', '--data']) {
      const result = await runNode([CLI, 'dev', '--port', '0', flag, '']);
      expect(result.code, flag).toBe(2);
      expect(result.stderr).toContain(`${flag} must not be empty`);
    }
  });

  it('names the flag of a start-up error: a --data that is a directory, a --host of another machine', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-cli-'));
    try {
      const data = await runNode([CLI, 'dev', '--port', '0', '--data', dir]);
      expect(data.code).toBe(1);
      expect(data.stderr).toContain(`--data ${dir}: cannot use it as the data file (EISDIR`);
      // A documentation address (RFC 5737), on no interface of this machine.
      const host = await runNode([CLI, 'dev', '--port', '0', '--host', '192.0.2.1']);
      expect(host.code).toBe(1);
      expect(host.stderr).toContain('--host 192.0.2.1: cannot listen there (EADDRNOTAVAIL)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('closes cleanly on SIGHUP, as when its terminal closes, and exits 0', async () => {
    const { running } = await startDev(['--port', '0']);
    running.child.kill('SIGHUP');
    const result = await running.exited;
    expect(result.code).toBe(0);
    expect(result.signal).toBeNull();
  });

  it('refuses a jobs watch --interval that would poll in a loop, naming the range', async () => {
    const result = await runNode([CLI, 'jobs', 'watch', 'job-1', '--interval', '0.000001']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--interval must be a number of seconds from 0.001 to 3600, got "0.000001"');
  });

  it('prints the dev usage for --help and exits 0', async () => {
    const result = await runNode([CLI, 'dev', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: weft dev [--port N] [--host H] [--data FILE]');
  });

  it('prints the jobs subcommands for jobs --help and -h, and exits 0', async () => {
    for (const flag of ['--help', '-h']) {
      const result = await runNode([CLI, 'jobs', flag]);
      expect(result.code, flag).toBe(0);
      expect(result.stdout, flag).toContain('Usage: weft jobs <subcommand> [options]');
      expect(result.stdout, flag).toContain("watch <job-id>   follow a training job's events until it ends");
      expect(result.stderr, flag).toBe('');
    }
  });

  it('names an unknown jobs subcommand, lists the others, and exits 2', async () => {
    const result = await runNode([CLI, 'jobs', 'launch']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown subcommand "launch"');
    expect(result.stderr).toContain('watch <job-id>');
  });

  it('names an unknown command and exits 2', async () => {
    const result = await runNode([CLI, 'launch']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command "launch"');
  });
});

/** Starts the command and resolves with its base URL once it has printed its banner. */
async function startDev(args: string[], env: Record<string, string> = {}) {
  const running = startNode([CLI, 'dev', ...args], env);
  let out = '';
  running.child.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  await running.waitForOutput('storage:');
  return { running, url: /listening on (http:\/\/\S+)/.exec(out)![1]! };
}
