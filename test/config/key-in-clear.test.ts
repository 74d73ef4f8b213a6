import { describe, expect, it } from 'vitest';
import { runNode, startNode } from '../helpers/child.js';

// The warning that a key would travel in clear text must reach the user whether or not anyone gave OTel's `diag` a
// logger, once, and without the key. These run the built package (`npm run build` first), as an app would.

const KEY = 'sk-never-print-me-9876';
const WARNING = 'the API key would travel unencrypted to trace.example.com';

function timesSaid(text: string): number {
  return text.split(WARNING).length - 1;
}

describe('a Client with a key, pointed over plain http at another machine', () => {
  it('warns on stderr when nobody set a diagnostic logger', async () => {
    const result = await runNode(['test/fixtures/client/key-in-clear.mjs', 'alone']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`[WEFT] Warning: weft: ${WARNING}`);
    expect(timesSaid(result.stderr + result.stdout)).toBe(1);
    expect(result.stderr + result.stdout).not.toContain(KEY);
  });

  it("warns once, through the app's logger, when the app set one", async () => {
    const result = await runNode(['test/fixtures/client/key-in-clear.mjs', 'app-logger']);
    expect(result.code, result.stderr).toBe(0);
    expect(timesSaid(result.stderr + result.stdout)).toBe(1);
    expect(result.stderr).not.toContain('[WEFT]');
  });

  it("warns once, through register()'s logger, when it comes after register()", async () => {
    const result = await runNode(['test/fixtures/client/key-in-clear.mjs', 'after-register']);
    expect(result.code, result.stderr).toBe(0);
    expect(timesSaid(result.stderr + result.stdout)).toBe(1);
    expect(result.stderr).not.toContain('[WEFT]');
  });

  it('warns once per host, whoever sends there (the client, a span processor)', async () => {
    const result = await runNode(['test/fixtures/client/key-in-clear.mjs', 'two-hosts']);
    expect(result.code, result.stderr).toBe(0);
    expect(timesSaid(result.stderr)).toBe(1);
    expect(result.stderr).toContain('the API key would travel unencrypted to other.example.com');
    expect(result.stderr).not.toContain(KEY);
  });

  it('says nothing when WEFT_LOG_LEVEL is below warn', async () => {
    const result = await runNode(['test/fixtures/client/key-in-clear.mjs', 'alone'], { WEFT_LOG_LEVEL: 'error' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr + result.stdout).toBe('');
  });
});

describe('weft jobs watch with a key, pointed over plain http at another machine', () => {
  it('warns on stderr, without the key', async () => {
    // 192.0.2.1 is a documentation address (RFC 5737): nothing answers there; the watch is stopped once it starts.
    const running = startNode(['dist/cli.js', 'jobs', 'watch', 'job-1', '--base-url', 'http://192.0.2.1/v1'], { WEFT_API_KEY: KEY });
    await running.waitForOutput('watching job job-1');
    running.child.kill('SIGINT');
    const result = await running.exited;
    expect(result.stderr).toContain('weft jobs watch: the API key would travel unencrypted to 192.0.2.1');
    expect(result.stderr + result.stdout).not.toContain(KEY);
  });
});
