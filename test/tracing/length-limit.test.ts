import { op } from 'weft';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { named, startHarness, type TracingHarness } from './harness.js';

// The SDK cuts any attribute longer than OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT without regard for JSON; weft must
// keep what it writes within the limit. Set before register() and weft's first call, which both read it once.
const LIMIT = 200;
let h: TracingHarness;
let previous: string | undefined;
beforeAll(async () => {
  previous = process.env.OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT;
  process.env.OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT = String(LIMIT);
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
  if (previous === undefined) delete process.env.OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT;
  else process.env.OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT = previous;
});

/** The attribute, checked to be within the limit and (when it is JSON) valid JSON after the SDK's cut. */
function checked(value: unknown, limit = LIMIT): string {
  const text = String(value);
  expect(text.length).toBeLessThanOrEqual(limit);
  if (/^[[{]/.test(text)) expect(() => JSON.parse(text)).not.toThrow();
  return text;
}

describe(`with OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT=${LIMIT}`, () => {
  it('keeps long inputs and output valid JSON, cut with markers', async () => {
    const manyArgs = op(function manyArgs(...words: string[]) {
      return words.map((w, i) => `${i}: ${w}`);
    });
    const words = Array.from({ length: 8 }, (_, i) => String(i).repeat(60));
    const spans = await h.capture(() => manyArgs(...words));
    const span = named(spans, 'manyArgs');
    expect(checked(span.attributes.inputs)).toContain('[weft: ');
    expect(checked(span.attributes.output)).toContain('[weft: ');
  });

  it('keeps a long string output and a long custom attribute within the limit', async () => {
    const long = 'x'.repeat(5_000);
    const echo = op(() => long, { name: 'echo', attributes: { note: long, doc: { body: long } } });
    const spans = await h.capture(() => echo());
    const span = named(spans, 'echo');
    expect(checked(span.attributes.output)).toMatch(/more chars\]$/);
    checked(span.attributes['wandb.attributes.note']);
    checked(span.attributes['wandb.attributes.doc']);
  });

  it('keeps to the SDK limit when an op asks for more', async () => {
    const nested = op(() => ({ items: Array.from({ length: 100 }, (_, i) => ({ id: i, text: 'y'.repeat(50) })) }), {
      name: 'nested',
      maxAttributeLength: 10_000,
    });
    const spans = await h.capture(() => nested());
    checked(named(spans, 'nested').attributes.output);
  });
});

describe('a per-op maxAttributeLength', () => {
  it('is kept under any positive limit, leaving the value out when not even a marker fits', async () => {
    const deep = { a: { b: { c: { d: ['z'.repeat(500), 'w'.repeat(500)] } } }, e: 'v'.repeat(500) };
    for (const limit of [10, 40, 64, 100, 150]) {
      const f = op((value: unknown) => value, { name: `limit${limit}`, maxAttributeLength: limit });
      const spans = await h.capture(() => f(deep));
      const span = named(spans, `limit${limit}`);
      for (const key of ['inputs', 'output']) {
        if (key in span.attributes) checked(span.attributes[key], limit);
      }
    }
  });

  it('must be a positive integer, said when the op is made', () => {
    expect(() => op(() => 1, { maxAttributeLength: 0 })).toThrow(/maxAttributeLength.*positive integer/);
    expect(() => op(() => 1, { maxAttributeLength: Number.NaN })).toThrow(/maxAttributeLength/);
  });
});
