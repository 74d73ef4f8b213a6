import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runNode } from '../helpers/child.js';
import { loopbackPeersPerTest, tracedAppEnv } from '../helpers/loopback-peers.js';

// register() in an app that registered its own context manager or propagator first. The API keeps the first of
// each and refuses the next: weft used to register its own all the same (the API printed an error), enter its
// chat span in a manager that was not the global one, so that the app's instrumentations of fetch or HTTP never saw
// it, and disable the app's manager and propagator at shutdown().

const fixture = fileURLToPath(new URL('fixtures/app-globals-first.cjs', import.meta.url));
const peers = loopbackPeersPerTest();

async function runApp(env: Record<string, string> = {}) {
  const result = await runNode([fixture], tracedAppEnv(peers, 'sk-app-globals', env));
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const line = /^report (.*)$/m.exec(result.stdout);
  expect(line, result.stdout).not.toBeNull();
  const report = JSON.parse(line![1]!) as {
    isGlobal: boolean;
    seen: { activeSpanId?: string; traceparent?: string }[];
    contextWorks: boolean;
    fields: string[];
  };
  const spans = peers.receiver.spans();
  const chat = spans.find((span) => span.name === 'chat app-globals');
  const op = spans.find((span) => span.name === 'handle_request');
  expect(chat, 'no chat span reached the trace service').toBeDefined();
  expect(chat?.parentSpanId).toBe(op?.spanId);
  return { report, chat };
}

describe("register() after the app's own context manager and propagator", () => {
  it('keeps them, makes the chat span active inside the call through them, and leaves them working at shutdown', async () => {
    const { report, chat } = await runApp();
    expect(report.isGlobal).toBe(true);
    expect(report.seen).toHaveLength(1);
    expect(report.seen[0]?.activeSpanId).toBe(chat?.spanId);
    expect(report.seen[0]?.traceparent).toBe(`00-${chat?.traceId}-${chat?.spanId}-01`);
    expect(report.contextWorks).toBe(true);
    expect(report.fields).toEqual(['traceparent', 'tracestate']);
  });

  it("keeps the app's propagator alone, registering weft's context manager, and gives back only that at shutdown", async () => {
    const { report, chat } = await runApp({ MODE: 'propagators' });
    expect(report.seen[0]?.activeSpanId).toBe(chat?.spanId);
    expect(report.seen[0]?.traceparent).toBe(`00-${chat?.traceId}-${chat?.spanId}-01`);
    expect(report.contextWorks).toBe(false);
    expect(report.fields).toEqual(['traceparent', 'tracestate']);
  });
});
