import { DiagConsoleLogger, DiagLogLevel, diag } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIInstrumentation } from 'weft';
import { HELLO } from '../helpers/openai-server.js';
import { type Harness, startHarness } from './harness.js';

/**
 * An app (or a library inside it) that makes and registers a second OpenAIInstrumentation: `openai` stays patched
 * once, and its calls are recorded with the options of the registered instance enabled or configured last — a
 * `captureContent: false` is never silently ignored. An instance that was only constructed (enabled, but never
 * given a tracer provider) is not followed.
 */

let h: Harness;
/**
 * What weft warned, for the whole file: the warning about several instances is said once per process, by whichever
 * test enables a second one first, and the tests may run in any order.
 */
const warnings: string[] = [];
beforeAll(async () => {
  h = await startHarness({ captureContent: true });
  // After register(), which sets its own logger.
  const record = (...args: unknown[]) => void warnings.push(args.join(' '));
  diag.setLogger({ error: record, warn: record, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
});
afterAll(async () => {
  await h.close();
  diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.WARN);
});

/** Gives `instrumentation` weft's tracer provider, as register() or registerInstrumentations() do. */
function registered(instrumentation: OpenAIInstrumentation): OpenAIInstrumentation {
  instrumentation.setTracerProvider(h.handle.tracerProvider);
  return instrumentation;
}

/** Whether the chat completions `create` the clients call is wrapped (shimmer's mark, which weft sets too). */
function createIsWrapped(): boolean {
  const prototype = Object.getPrototypeOf(h.client().chat.completions) as { create: { __wrapped?: boolean } };
  return prototype.create.__wrapped === true;
}

const CONTENT_KEYS = ['gen_ai.input.messages', 'gen_ai.output.messages'];

async function contentRecorded(): Promise<string[]> {
  h.server.reply(HELLO);
  await h.client().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'my secret' }] });
  const [span] = await h.spans(1);
  expect(span?.attributes['llm.usage.total_tokens']).toBe(15);
  return CONTENT_KEYS.filter((key) => key in (span?.attributes ?? {}));
}

describe('a second OpenAIInstrumentation', () => {
  it('has its captureContent: false respected, says once that several are enabled, and hands back on disable()', async () => {
    let second: OpenAIInstrumentation | undefined;
    try {
      expect(await contentRecorded()).toEqual(CONTENT_KEYS);

      second = registered(new OpenAIInstrumentation({ captureContent: false }));
      second.manuallyInstrument(h.client());
      expect(await contentRecorded()).toEqual([]);
      expect(await contentRecorded()).toEqual([]);
      expect(warnings.filter((line) => line.includes('several OpenAIInstrumentation'))).toHaveLength(1);

      second.disable();
      expect(await contentRecorded()).toEqual(CONTENT_KEYS);
    } finally {
      second?.disable();
    }
  });

  it('follows the options of the instance configured last', async () => {
    const second = registered(new OpenAIInstrumentation({ captureContent: false }));
    try {
      expect(await contentRecorded()).toEqual([]);
      h.instrumentation.setConfig({ captureContent: 'output' });
      expect(await contentRecorded()).toEqual(['gen_ai.output.messages']);
    } finally {
      second.disable();
      h.instrumentation.setConfig({ captureContent: true });
    }
  });

  it('keeps openai traced when the instance that patched it is disabled, and is unpatched with the last one', async () => {
    const second = registered(new OpenAIInstrumentation({ captureContent: false }));
    try {
      h.instrumentation.disable();
      expect(createIsWrapped()).toBe(true);
      expect(await contentRecorded()).toEqual([]);

      second.disable();
      expect(createIsWrapped()).toBe(false);
    } finally {
      second.disable();
      h.instrumentation.enable();
    }
    expect(createIsWrapped()).toBe(true);
    expect(await contentRecorded()).toEqual(CONTENT_KEYS);
  });

  it('is not followed while it was only constructed, never given a tracer provider', async () => {
    const stray = new OpenAIInstrumentation({ captureContent: false });
    try {
      expect(stray.isEnabled()).toBe(true);
      expect(await contentRecorded()).toEqual(CONTENT_KEYS);
      registered(stray);
      expect(await contentRecorded()).toEqual([]);
    } finally {
      stray.disable();
    }
    expect(await contentRecorded()).toEqual(CONTENT_KEYS);
  });

  it('does not keep openai patched when the registered instances are disabled', async () => {
    const stray = new OpenAIInstrumentation();
    try {
      h.instrumentation.disable();
      expect(createIsWrapped()).toBe(false);
    } finally {
      stray.disable();
      h.instrumentation.enable();
    }
    expect(await contentRecorded()).toEqual(CONTENT_KEYS);
  });
});
