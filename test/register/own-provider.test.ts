import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runNode } from '../helpers/child.js';
import { loopbackPeersPerTest, tracedAppEnv } from '../helpers/loopback-peers.js';

// The README's recipe for an app that has its own OpenTelemetry setup (NodeSDK): weft's span processors and
// instrumentations on the app's provider, no register(). Followed as written, an openai call is traced, under
// the app's own span, in CommonJS and in an ES-module app (with OTel's loader hook, or openai patched by hand).

const fixture = (name: string) => fileURLToPath(new URL(`fixtures/${name}`, import.meta.url));

const peers = loopbackPeersPerTest();

async function runApp(app: string, env: Record<string, string> = {}, telemetry = 'own-provider-telemetry.mjs') {
  const result = await runNode(['--import', fixture(telemetry), fixture(app)], tracedAppEnv(peers, 'sk-own-provider', env));
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const spans = peers.receiver.spans();
  const app_ = spans.find((s) => s.name === 'handle-request');
  const chat = spans.find((s) => s.name === 'chat own-provider');
  return { spans, app: app_, chat };
}

describe("weft in an app's own OpenTelemetry setup, as the README has it", () => {
  it('traces an openai call of a CommonJS app under the app’s span', async () => {
    const { app, chat } = await runApp('own-provider-app.cjs');
    expect(app).toBeDefined();
    expect(chat, 'no chat span reached the trace service').toBeDefined();
    expect(chat?.parentSpanId).toBe(app?.spanId);
    expect(chat?.traceId).toBe(app?.traceId);
  });

  it('traces an openai call of an ES-module app when OTel’s loader hook is registered first', async () => {
    const { app, chat } = await runApp('own-provider-app.mjs', { OTEL_HOOK: '1' });
    expect(chat, 'no chat span reached the trace service').toBeDefined();
    expect(chat?.parentSpanId).toBe(app?.spanId);
  });

  it('traces an openai call of an ES-module app that patches openai by hand', async () => {
    const { app, chat } = await runApp('own-provider-app.mjs', { MANUAL: '1' });
    expect(chat, 'no chat span reached the trace service').toBeDefined();
    expect(chat?.parentSpanId).toBe(app?.spanId);
  });
});

describe("weft in an app's own setup on OpenTelemetry's 1.x SDK (NodeSDK 0.5x)", () => {
  // A 1.x span names its scope `instrumentationLibrary` and its parent `parentSpanId`: weft's encoder, reading
  // only the 2.x names, failed every export of such an app, and would have made every span a root.
  it('exports the chat span under the app’s span, with its scope, from a 1.x provider', async () => {
    const { app, chat } = await runApp('own-provider-app.cjs', {}, 'own-provider-sdk1-telemetry.mjs');
    expect(app, 'the app’s own span did not reach the trace service').toBeDefined();
    expect(app?.scope.name).toBe('app');
    expect(app?.parentSpanId).toBeUndefined();
    expect(app?.resource['wandb.project']).toBe('own-provider');
    expect(chat, 'no chat span reached the trace service').toBeDefined();
    expect(chat?.parentSpanId).toBe(app?.spanId);
    expect(chat?.traceId).toBe(app?.traceId);
    expect(chat?.scope.name).toBe('weft/openai');
    expect(chat?.attributes['gen_ai.usage.input_tokens']).toBeTypeOf('number');
  });
});
