import { DiagConsoleLogger, DiagLogLevel, diag } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIInstrumentation } from 'weft';
import { HELLO } from '../helpers/openai-server.js';
import { type Harness, startHarness } from './harness.js';

/**
 * An app (or a library inside it) that makes a second OpenAIInstrumentation: `openai` stays patched once, and
 * its calls are recorded with the options of the instance enabled or configured last — a `captureContent:
 * false` is never silently ignored.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ captureContent: true });
});
afterAll(async () => {
  await h.close();
});

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
    const warnings: string[] = [];
    const record = (...args: unknown[]) => void warnings.push(args.join(' '));
    diag.setLogger({ error: record, warn: record, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
    let second: OpenAIInstrumentation | undefined;
    try {
      expect(await contentRecorded()).toEqual(CONTENT_KEYS);

      second = new OpenAIInstrumentation({ captureContent: false });
      second.manuallyInstrument(h.client());
      expect(await contentRecorded()).toEqual([]);
      expect(await contentRecorded()).toEqual([]);
      expect(warnings.filter((line) => line.includes('several OpenAIInstrumentation'))).toHaveLength(1);

      second.disable();
      expect(await contentRecorded()).toEqual(CONTENT_KEYS);
    } finally {
      second?.disable();
      diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.WARN);
    }
  });

  it('follows the options of the instance configured last', async () => {
    const second = new OpenAIInstrumentation({ captureContent: false });
    try {
      expect(await contentRecorded()).toEqual([]);
      h.instrumentation.setConfig({ captureContent: 'output' });
      expect(await contentRecorded()).toEqual(['gen_ai.output.messages']);
    } finally {
      second.disable();
      h.instrumentation.setConfig({ captureContent: true });
    }
  });
});
