import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runNode } from '../helpers/child.js';
import { loopbackPeersPerTest, tracedAppEnv } from '../helpers/loopback-peers.js';

/**
 * On Node 20 and 22, the first context entered through AsyncLocalStorage installs async hooks that cost every
 * promise of the process from then on. weft's context manager leaves them off while nothing needs a context to
 * reach async code, and switches to the stock behaviour as soon as something does.
 */

const fixture = fileURLToPath(new URL('../fixtures/register/async-hooks.cjs', import.meta.url));
// Node 24 runs AsyncLocalStorage on async context frames, which need no hooks at all.
const alsUsesAsyncHooks = Number(process.versions.node.split('.')[0]) < 24;

const peers = loopbackPeersPerTest();

interface Report {
  hooksAfterChatCalls: boolean;
  hooksAtEnd: boolean;
  suppressedExports: boolean[];
  seenByFetch: (string | null)[];
}

async function run(mode: 'op' | 'listener' | 'suppress'): Promise<Report> {
  const result = await runNode([fixture, mode], tracedAppEnv(peers, 'sk-hooks', { WEFT_PROJECT: 'acme/hooks' }));
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Report;
}

function chatSpanIds(model: string): string[] {
  return peers.receiver
    .spans()
    .filter((s) => s.name === `chat ${model}`)
    .map((s) => s.spanId);
}

describe('tracing chat calls with nothing else in the process that uses contexts', () => {
  it('leaves Node’s async hooks off, exports every span, and makes every export request with tracing suppressed', async () => {
    const report = await run('op');
    expect(report.hooksAfterChatCalls).toBe(false);
    // One span per call (parse's inner create adds none), each exported.
    expect(chatSpanIds('alone')).toHaveLength(3);
    expect(report.suppressedExports.length).toBeGreaterThan(0);
    expect(report.suppressedExports.every(Boolean)).toBe(true);
    // Nothing could read the chat span while the request was on its way: the SDK's fetch saw no span.
    expect(report.seenByFetch.slice(0, 3)).toEqual([null, null, null]);
  });
});

describe('once something needs contexts to reach async code', () => {
  it('after an op() ran, makes each chat span active for the whole call, request included', async () => {
    const report = await run('op');
    expect(report.hooksAtEnd).toBe(alsUsesAsyncHooks);
    expect(report.seenByFetch.slice(3)).toEqual(chatSpanIds('after-op'));
    expect(report.suppressedExports.every(Boolean)).toBe(true);
  });

  it('while an instrumentation listens to undici’s requests, makes each chat span active for the whole call', async () => {
    const report = await run('listener');
    expect(report.seenByFetch.slice(3)).toEqual(chatSpanIds('observed'));
    expect(report.suppressedExports.every(Boolean)).toBe(true);
  });
});

describe('tracing suppressed by the app', () => {
  it('holds after an await inside it, though no context was in use before', async () => {
    const report = await run('suppress');
    expect(report.hooksAfterChatCalls).toBe(false);
    const models = peers.receiver.spans().map((s) => s.name);
    expect(models).not.toContain('chat suppressed-async');
    expect(models).not.toContain('chat suppressed-chain');
    expect(chatSpanIds('after-suppress')).toHaveLength(3);
    expect(report.seenByFetch.slice(-3)).toEqual(chatSpanIds('after-suppress'));
  });
});
