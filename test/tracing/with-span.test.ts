import { SpanStatusCode } from '@opentelemetry/api';
import { currentSpan, op, withSpan } from 'weft';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childrenOf, inputsOf, named, outputOf, startHarness, type TracingHarness } from './harness.js';

let h: TracingHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('withSpan()', () => {
  it('records a block with given inputs, its awaited result as output, and nests ops inside it', async () => {
    const step = op(async function step(n: number) {
      return n + 1;
    });
    const spans = await h.capture(() =>
      withSpan('block', async () => ({ result: await step(1) }), { inputs: { question: 'q' }, kind: 'chain' }),
    );
    const block = named(spans, 'block');
    expect(inputsOf(block)).toEqual({ question: 'q' });
    expect(outputOf(block)).toEqual({ result: 2 });
    expect(block.attributes['weave.span.kind']).toBe('chain');
    expect(childrenOf(spans, block).map((s) => s.name)).toEqual(['step']);
  });

  it('returns exactly what the block returns', async () => {
    const value = { same: true };
    await h.capture(() => expect(withSpan('identity', () => value)).toBe(value));
  });

  it('lets the block set inputs, output, attributes, display name and kind through its handle', async () => {
    const spans = await h.capture(() =>
      withSpan('handled', (span) => {
        span.setInputs({ a: 1 }).setOutput(['set']).setAttributes({ hits: 2 }).setDisplayName('Handled').setKind('tool');
        return 'returned';
      }),
    );
    const span = named(spans, 'handled');
    expect(inputsOf(span)).toEqual({ a: 1 });
    expect(outputOf(span)).toEqual(['set']);
    expect(Number(span.attributes['wandb.attributes.hits'])).toBe(2);
    expect(span.attributes['wandb.display_name']).toBe('Handled');
    expect(span.attributes['weave.span.kind']).toBe('tool');
  });

  it('records a rejected block and rethrows the same error', async () => {
    const boom = new Error('nope');
    let caught: unknown;
    const spans = await h.capture(() =>
      withSpan('rejects', async () => {
        throw boom;
      }).catch((e: unknown) => (caught = e)),
    );
    expect(caught).toBe(boom);
    expect(named(spans, 'rejects').status.code).toBe(SpanStatusCode.ERROR);
  });
});

describe('currentSpan()', () => {
  it('sets the output of the enclosing op, which then wins over its return value', async () => {
    const answer = op(async function answer(question: string) {
      currentSpan().setOutput({ text: 'explicit' }).setAttribute('model', 'small');
      return `ignored for ${question}`;
    });
    const spans = await h.capture(() => answer('why'));
    const span = named(spans, 'answer');
    expect(outputOf(span)).toEqual({ text: 'explicit' });
    expect(span.attributes['wandb.attributes.model']).toBe('small');
  });

  it('is a harmless no-op outside any span', () => {
    expect(() => currentSpan().setOutput(1).setInputs({ a: 1 }).setAttribute('k', 'v')).not.toThrow();
    expect(currentSpan().span.isRecording()).toBe(false);
  });
});
