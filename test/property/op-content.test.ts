import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentSpan, op, register, type WeftHandle, withContext } from 'weft';
import type { DecodedSpan } from '../../src/otlp/index.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { edgeNumber, text } from './arbitraries.js';
import { runs } from './runs.js';

/**
 * An op's inputs, output and custom attributes (its `attributes` option, `currentSpan().setAttribute()`, and
 * `withContext()` metadata), for random values and random length limits, under the SDK's own attribute length limit
 * (a provider's `spanLimits`), exported over a real socket: the op returns what its function returned; every value
 * recorded as JSON parses (weft fitted it, the SDK never cut it mid-way); every string fits the tighter of the two
 * limits.
 */

const SDK_LIMIT = 2000;

let receiver: OtlpReceiver;
let handle: WeftHandle;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  handle = register({
    baseUrl: receiver.url,
    project: 'test/property',
    instrumentations: [],
    flushOnExit: false,
    logger: false,
    spanLimits: { attributeValueLengthLimit: SDK_LIMIT },
  });
});

afterAll(async () => {
  await handle?.shutdown();
  await receiver?.close();
});

/** Runs `work`, flushes, and returns the spans exported since it started. */
async function capture(work: () => unknown): Promise<DecodedSpan[]> {
  await handle.forceFlush();
  const before = receiver.spans().length;
  await work();
  await handle.forceFlush();
  return receiver.spans().slice(before);
}

const longText = fc.oneof(text(40), fc.tuple(text(3), fc.integer({ min: 10, max: 2000 })).map(([unit, times]) => unit.repeat(times)));
const leaf = fc.oneof(longText, edgeNumber, fc.boolean(), fc.constant(null), fc.bigInt(), fc.date({ noInvalidDate: false }));
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 6 }),
    fc.array(longText, { maxLength: 6 }),
    fc.dictionary(text(8), tie('value'), { maxKeys: 5 }),
    fc.array(fc.tuple(tie('value'), tie('value')), { maxLength: 3 }).map((entries) => new Map(entries)),
    fc.array(tie('value'), { maxLength: 3 }).map((items) => new Set(items)),
    fc.dictionary(text(8), tie('value'), { maxKeys: 3 }).map((record) => {
      const cyclic: Record<string, unknown> = { ...record };
      cyclic.self = cyclic;
      return cyclic;
    }),
  ),
}));

/** Whether weft records `v` as JSON text of an object or array (rather than as a scalar or a string). */
function recordedAsJson(v: unknown): boolean {
  return (Array.isArray(v) && !v.every((item) => typeof item === 'string')) || v instanceof Map || v instanceof Set || (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype);
}

function expectJson(attribute: unknown, what: string): void {
  if (attribute === undefined) return;
  expect(typeof attribute, what).toBe('string');
  try {
    JSON.parse(attribute as string);
  } catch {
    throw new Error(`${what} is not JSON (${(attribute as string).length} chars): ${(attribute as string).slice(0, 200)}`);
  }
}

describe('an op’s recorded content, for random values and limits', () => {
  it('is the function’s own result for the app, and valid JSON within the limits on the span', async () => {
    await fc.assert(
      fc.asyncProperty(
        value,
        value,
        value,
        value,
        value,
        value,
        // From 8: a `false` output is recorded as the text `false` whatever the limit (the trace service hides a falsy
        // output), which a limit of a few characters cannot hold; no one sets one that small.
        fc.option(fc.integer({ min: 8, max: 4000 }), { nil: undefined }),
        async (first, second, output, custom, fromHandle, metadata, maxAttributeLength) => {
          const traced = op(
            function fuzzed(a: unknown, b: unknown) {
              void a;
              void b;
              currentSpan().setAttribute('handle', fromHandle);
              return output;
            },
            { maxAttributeLength, attributes: { custom } },
          );
          let returned: unknown;
          const spans = await capture(() => {
            returned = withContext({ metadata: { metadata } }, () => traced(first, second));
          });
          expect(returned).toBe(output);
          expect(spans).toHaveLength(1);
          const { attributes } = spans[0]!;
          const limit = Math.min(SDK_LIMIT, maxAttributeLength ?? SDK_LIMIT);
          for (const [key, recorded] of Object.entries(attributes)) {
            const texts = typeof recorded === 'string' ? [recorded] : Array.isArray(recorded) ? recorded.filter((r) => typeof r === 'string') : [];
            // An op's own maxAttributeLength bounds what it records (inputs, output, its attributes); the SDK's, everything.
            for (const t of texts) expect((t as string).length, key).toBeLessThanOrEqual(key.startsWith('wandb.attributes.metadata') ? SDK_LIMIT : limit);
          }
          expectJson(attributes.inputs, 'inputs');
          if (recordedAsJson(output)) expectJson(attributes.output, 'output');
          if (recordedAsJson(custom)) expectJson(attributes['wandb.attributes.custom'], 'op attribute');
          if (recordedAsJson(fromHandle)) expectJson(attributes['wandb.attributes.handle'], 'span handle attribute');
          if (recordedAsJson(metadata)) expectJson(attributes['wandb.attributes.metadata'], 'withContext() metadata');
        },
      ),
      {
        ...runs(1000),
        // What the property found: custom attributes were made within the tracing settings' limit (262,144) whatever
        // the span's own, so the SDK's cut their JSON at 2,000 mid-way; an op's maxAttributeLength did not bound them.
        examples: [
          [null, null, null, { text: 'x'.repeat(2500) }, null, null, undefined],
          [null, null, null, null, { text: 'x'.repeat(2500) }, null, undefined],
          [null, null, null, null, null, { text: 'x'.repeat(2500) }, undefined],
          [null, null, null, { self: 'a long enough text' }, null, null, 8],
        ],
      },
    );
  });
});
