import { type Attributes, type Link, ROOT_CONTEXT, type Span, type SpanContext, SpanKind, type TimeInput, trace } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { currentSpan, op, register, type SpanHandle, type WeftHandle, weftSpanProcessor, withSpan } from 'weft';
import { encodeTraceExportResponse } from '../../src/otlp/index.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { edgeNumber, text } from './arbitraries.js';
import { expectSameSpansOnWire, spansOnWire } from './wire.js';
import { runs } from './runs.js';

/**
 * weft's OTLP encoder against the stock one, over real sockets: the same spans, made through weft's public API
 * (withSpan, op, span handles, and the OTel span a handle holds) with random names, keys and values, go both
 * through weft's exporter and through `@opentelemetry/exporter-trace-otlp-proto` to two loopback receivers, and every
 * span must arrive as the same bytes under the same resource and scope bytes.
 */

const protobufReply = () => ({ status: 200, headers: { 'content-type': 'application/x-protobuf' }, body: encodeTraceExportResponse() });

function stockProcessor(receiver: OtlpReceiver): BatchSpanProcessor {
  // One request per flush: nothing is sent until the flush, and no batch is too small for a run's spans.
  return new BatchSpanProcessor(new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` }), {
    maxQueueSize: 100_000,
    maxExportBatchSize: 100_000,
    scheduledDelayMillis: 3_600_000,
  });
}

/** Every span both receivers got since the last call, compared on the wire; how many there were. */
function compareAndClear(ours: OtlpReceiver, theirs: OtlpReceiver): number {
  const weftSpans = ours.requests.flatMap((r) => spansOnWire(r.body));
  const stockSpans = theirs.requests.flatMap((r) => spansOnWire(r.body));
  ours.requests.length = 0;
  theirs.requests.length = 0;
  expectSameSpansOnWire(weftSpans, stockSpans);
  return stockSpans.length;
}

// --- values ---------------------------------------------------------------------------------------------------

const scalar = fc.oneof(text(), edgeNumber, fc.boolean());
/** What an app may hand the SDK's setAttribute: homogeneous arrays (holes allowed), and some it refuses (mixed). */
const attributeValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(text(), { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.array(edgeNumber, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.array(fc.boolean(), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.array(fc.option(text(), { nil: undefined }), { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.array(fc.option(edgeNumber, { nil: null }), { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined) },
  { weight: 1, arbitrary: text(3000) },
);
const attributeKey = fc.oneof({ weight: 4, arbitrary: text(12) }, { weight: 1, arbitrary: fc.constantFrom('', 'gen_ai.request.model', '__proto__', 'constructor', '0', '1e3') });
const attributeRecord = fc.dictionary(attributeKey, attributeValue, { maxKeys: 6 });

/** Custom attributes for weft's own handle, which turns any value into an attribute (JSON text when it must). */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  attributeValue,
  fc.bigInt(),
  fc.date({ noInvalidDate: false }),
  fc.object({ maxDepth: 2, maxKeys: 3, key: text(6), values: [scalar] }),
);

const hexId = (length: number) =>
  fc
    .array(fc.constantFrom(...'0123456789abcdefABCDEF'), { minLength: length, maxLength: length })
    .map((digits) => digits.join(''))
    .filter((id) => /[1-9a-fA-F]/.test(id));

/** W3C trace-state text; invalid members are dropped by TraceState, the same way for both exporters. */
const traceState = fc.option(
  fc.array(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9_*/-]{0,8}$/), fc.stringMatching(/^[!-+--<>-~]{1,8}$/)), { maxLength: 3 }).map(
    (members) => new TraceState(members.map(([k, v]) => `${k}=${v}`).join(',')),
  ),
  { nil: undefined },
);

/** Times as an app gives them: epoch millis (fractional too), Dates, HrTime tuples, performance-relative millis. */
const timeInput: fc.Arbitrary<TimeInput | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.double({ min: 1e12, max: 4e12, noNaN: true }),
  fc.date({ min: new Date(0), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }),
  fc.tuple(fc.integer({ min: 0, max: 2 ** 33 }), fc.integer({ min: 0, max: 999_999_999 })),
  fc.double({ min: 0, max: 1e6, noNaN: true }),
);

const linkArbitrary: fc.Arbitrary<Link> = fc.record({
  context: fc.record({
    traceId: hexId(32),
    spanId: hexId(16),
    traceFlags: fc.integer({ min: 0, max: 255 }),
    isRemote: fc.option(fc.boolean(), { nil: undefined }),
    traceState,
  }),
  attributes: fc.option(attributeRecord as fc.Arbitrary<Attributes>, { nil: undefined }),
});

// --- what a traced block does ---------------------------------------------------------------------------------

type Step =
  | { kind: 'attribute'; key: string; value: unknown }
  | { kind: 'attributes'; record: Record<string, unknown> }
  | { kind: 'custom'; key: string; value: unknown }
  | { kind: 'event'; name: string; attributes: Record<string, unknown> | undefined; time: TimeInput | undefined }
  | { kind: 'link'; link: Link }
  | { kind: 'status'; code: number; message: string | undefined }
  | { kind: 'exception'; message: string }
  | { kind: 'rename'; name: string }
  | { kind: 'display'; name: string }
  | { kind: 'output'; value: unknown }
  | { kind: 'child'; name: string; asOp: boolean; spanKind: string | undefined; attributes: Record<string, unknown> | undefined; steps: Step[] };

const { steps: stepsArbitrary } = fc.letrec<{ steps: Step[]; step: Step }>((tie) => ({
  steps: fc.array(tie('step'), { maxLength: 6, depthIdentifier: 'steps' }),
  step: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ kind: fc.constant('attribute' as const), key: attributeKey, value: attributeValue }),
    fc.record({ kind: fc.constant('attributes' as const), record: attributeRecord }),
    fc.record({ kind: fc.constant('custom' as const), key: attributeKey, value: anyValue }),
    fc.record({
      kind: fc.constant('event' as const),
      name: text(),
      attributes: fc.option(attributeRecord, { nil: undefined }),
      time: timeInput,
    }),
    fc.record({ kind: fc.constant('link' as const), link: linkArbitrary }),
    fc.record({ kind: fc.constant('status' as const), code: fc.integer({ min: 0, max: 2 }), message: fc.option(text(), { nil: undefined }) }),
    fc.record({ kind: fc.constant('exception' as const), message: text() }),
    fc.record({ kind: fc.constant('rename' as const), name: text() }),
    fc.record({ kind: fc.constant('display' as const), name: text() }),
    fc.record({ kind: fc.constant('output' as const), value: anyValue }),
    fc.record({
      kind: fc.constant('child' as const),
      name: text(),
      asOp: fc.boolean(),
      spanKind: fc.option(text(8), { nil: undefined }),
      attributes: fc.option(fc.dictionary(attributeKey, anyValue, { maxKeys: 3 }), { nil: undefined }),
      steps: tie('steps') as fc.Arbitrary<Step[]>,
    }),
  ),
}));

async function perform(handle: SpanHandle, steps: readonly Step[]): Promise<unknown> {
  const span = handle.span;
  let output: unknown;
  for (const step of steps) {
    switch (step.kind) {
      case 'attribute':
        span.setAttribute(step.key, step.value as never);
        break;
      case 'attributes':
        span.setAttributes(step.record as Attributes);
        break;
      case 'custom':
        handle.setAttribute(step.key, step.value);
        break;
      case 'event':
        span.addEvent(step.name, step.attributes as Attributes | undefined, step.time);
        break;
      case 'link':
        span.addLink(step.link);
        break;
      case 'status':
        span.setStatus({ code: step.code, ...(step.message === undefined ? {} : { message: step.message }) });
        break;
      case 'exception':
        span.recordException(new Error(step.message));
        break;
      case 'rename':
        span.updateName(step.name);
        break;
      case 'display':
        handle.setDisplayName(step.name);
        break;
      case 'output':
        output = step.value;
        break;
      case 'child': {
        const options = { kind: step.spanKind, attributes: step.attributes };
        const { steps } = step;
        if (step.asOp) {
          const traced = op(async function child(value: unknown) {
            return perform(currentHandle(), steps).then((out) => out ?? value);
          }, { ...options, name: step.name || 'child' });
          await traced(step.name);
        } else {
          await withSpan(step.name, (child) => perform(child, steps), options);
        }
        break;
      }
    }
  }
  return output;
}

// An op's body reaches its span through currentSpan().
const currentHandle = () => currentSpan();

// --- the properties -------------------------------------------------------------------------------------------

let weftReceiver: OtlpReceiver;
let stockReceiver: OtlpReceiver;
let handle: WeftHandle;

beforeAll(async () => {
  weftReceiver = await startOtlpReceiver();
  stockReceiver = await startOtlpReceiver({ reply: protobufReply });
  handle = register({
    baseUrl: weftReceiver.url,
    project: 'test/property',
    instrumentations: [],
    flushOnExit: false,
    logger: false,
    spanProcessors: [stockProcessor(stockReceiver)],
  });
});

afterAll(async () => {
  await handle?.shutdown();
  await weftReceiver?.close();
  await stockReceiver?.close();
});

describe('weft’s OTLP export, byte for byte the stock exporter’s', () => {
  it('for spans made with withSpan, op and span handles, with random names, keys, values, events, links and statuses', async () => {
    let total = 0;
    await fc.assert(
      fc.asyncProperty(text(), stepsArbitrary, async (name, steps) => {
        await withSpan(name, (span) => perform(span, steps));
        await handle.forceFlush();
        total += compareAndClear(weftReceiver, stockReceiver);
      }),
      { ...runs(1000), endOnFailure: true },
    );
    if (total < 150) throw new Error(`only ${total} spans compared`);
  });

  it('for an app’s own provider with weftSpanProcessor(): random resources, ids, parents, kinds and times', async () => {
    const resourceValue: fc.Arbitrary<unknown> = fc.oneof(
      attributeValue,
      fc.object({ maxDepth: 2, maxKeys: 3, key: text(6), values: [scalar] }),
      fc.uint8Array({ maxLength: 8 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(attributeKey, resourceValue, { maxKeys: 5 }),
        fc.option(fc.webUrl(), { nil: undefined }),
        fc.record({ name: text(), version: fc.option(text(), { nil: undefined }), schemaUrl: fc.option(fc.webUrl(), { nil: undefined }) }),
        fc.array(hexId(32), { minLength: 1, maxLength: 3 }),
        fc.array(hexId(16), { minLength: 8, maxLength: 8 }),
        fc.option(
          fc.record({ traceId: hexId(32), spanId: hexId(16), traceFlags: fc.integer({ min: 0, max: 255 }), isRemote: fc.boolean(), traceState }),
          { nil: undefined },
        ),
        fc.array(
          fc.record({
            name: text(),
            kind: fc.constantFrom(SpanKind.INTERNAL, SpanKind.SERVER, SpanKind.CLIENT, SpanKind.PRODUCER, SpanKind.CONSUMER),
            start: timeInput,
            end: timeInput,
            attributes: attributeRecord,
            nested: fc.boolean(),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        async (resourceAttributes, resourceSchema, scope, traceIds, spanIds, parent, spans) => {
          const receiver = await startOtlpReceiver();
          const stock = await startOtlpReceiver({ reply: protobufReply });
          let nextTrace = 0;
          let nextSpan = 0;
          const provider = new BasicTracerProvider({
            resource: resourceFromAttributes(resourceAttributes as Attributes, resourceSchema ? { schemaUrl: resourceSchema } : {}),
            idGenerator: {
              generateTraceId: () => traceIds[nextTrace++ % traceIds.length]!,
              generateSpanId: () => spanIds[nextSpan++ % spanIds.length]!,
            },
            spanProcessors: [weftSpanProcessor({ baseUrl: receiver.url, project: 'test/property', flushOnExit: false }), stockProcessor(stock)],
          });
          try {
            const tracer = provider.getTracer(scope.name, scope.version, scope.schemaUrl ? { schemaUrl: scope.schemaUrl } : undefined);
            let context = parent ? trace.setSpanContext(ROOT_CONTEXT, parent as SpanContext) : ROOT_CONTEXT;
            const open: Span[] = [];
            // Eight span ids, given in turn, for at most four spans: each span has its own, and is compared by it.
            for (const s of spans.slice(0, spanIds.length)) {
              const span = tracer.startSpan(s.name, { kind: s.kind, attributes: s.attributes as Attributes, startTime: s.start }, context);
              if (s.nested) context = trace.setSpan(context, span);
              open.push(span);
            }
            // Under an unsampled parent (its trace flags) the spans record nothing, and neither exporter sends them.
            const recorded = open.filter((span) => span.isRecording()).length;
            for (const [i, span] of open.reverse().entries()) span.end(spans[open.length - 1 - i]!.end);
            await provider.forceFlush();
            if (compareAndClear(receiver, stock) !== recorded) throw new Error(`expected ${recorded} spans`);
          } finally {
            await provider.shutdown();
            await receiver.close();
            await stock.close();
          }
        },
      ),
      { ...runs(200), endOnFailure: true },
    );
  });
});
