import { startDevService, type DevService } from 'weft/dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecodedSpan } from '../../src/otlp/index.js';
import { runNode } from '../helpers/child.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { childrenOf, inputsOf, named, outputOf } from './harness.js';

// Runs examples/evaluation.ts as a user would (tsx, the built package, the real `openai` package), with its chat
// calls answered by `weft dev`'s offline model and its spans sent to a loopback OTLP receiver.
let dev: DevService;
let receiver: OtlpReceiver;
let spans: DecodedSpan[];
let stdout: string;

beforeAll(async () => {
  dev = await startDevService({ port: 0, log: false });
  receiver = await startOtlpReceiver();
  const result = await runNode(['--import', 'tsx', 'examples/evaluation.ts'], {
    WEFT_BASE_URL: receiver.url,
    WEFT_PROJECT: 'test/evaluation',
    WEFT_INFERENCE_BASE_URL: dev.v1Url,
  });
  if (result.code !== 0) throw new Error(`example failed (${result.code}): ${result.stderr}`);
  stdout = result.stdout;
  spans = receiver.spans();
});
afterAll(async () => {
  await receiver.close();
  await dev.close();
});

describe('examples/evaluation.ts', () => {
  it('prints the evaluation summary', () => {
    expect(stdout).toMatch(/evaluation summary: \{ rows: 3, exactMatch: \d/);
  });

  it('traces the evaluation as the root, with one predictAndScore per row under it', () => {
    const evaluation = named(spans, 'evaluation');
    expect(evaluation.parentSpanId).toBeUndefined();
    expect(evaluation.attributes['weave.span.kind']).toBe('evaluation');
    expect((inputsOf(evaluation) as { rows: unknown[] }).rows).toHaveLength(3);
    expect(outputOf(evaluation)).toMatchObject({ rows: 3 });
    const rows = childrenOf(spans, evaluation);
    expect(rows.map((s) => s.name)).toEqual(['predictAndScore', 'predictAndScore', 'predictAndScore']);
  });

  it('nests predict and both scorers under each row, and the chat span under predict', () => {
    for (const row of childrenOf(spans, named(spans, 'evaluation'))) {
      const steps = childrenOf(spans, row);
      expect(steps.map((s) => s.name).sort()).toEqual(['containsAnswer', 'exactMatch', 'predict']);
      const predict = steps.find((s) => s.name === 'predict')!;
      const question = (inputsOf(row) as { row: { question: string } }).row.question;
      expect(inputsOf(predict)).toEqual({ question });
      const chats = childrenOf(spans, predict);
      expect(chats).toHaveLength(1);
      expect(chats[0]!.attributes['gen_ai.operation.name']).toBe('chat');
      expect(predict.attributes.output).toBe((outputOf(row) as { output: string }).output);
    }
  });

  it('puts every span, chat spans included, in one thread, with the evaluation as its turn', () => {
    const threadId = named(spans, 'evaluation').attributes['wandb.thread_id'];
    expect(threadId).toMatch(/^evaluation-/);
    expect(spans.every((s) => s.attributes['wandb.thread_id'] === threadId)).toBe(true);
    expect(spans.filter((s) => s.attributes['wandb.is_turn'] === true).map((s) => s.name)).toEqual(['evaluation']);
  });
});
