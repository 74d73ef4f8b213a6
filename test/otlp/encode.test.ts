import { type Attributes, type Link, ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { decodeTraceExport } from '../../src/otlp/index.js';
import { encodeTraceExport } from '../../src/otlp/encode.js';

/**
 * weft's encoder must write exactly the bytes OTel's own serializer writes, for every kind of span: the trace
 * service and every collector read them the same way.
 */

function spansFrom(record: (provider: BasicTracerProvider) => void, resource = resourceFromAttributes({ 'service.name': 'svc' })): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  record(provider);
  return exporter.getFinishedSpans();
}

function expectSameBytes(spans: readonly ReadableSpan[]): Uint8Array {
  const ours = encodeTraceExport(spans);
  const theirs = ProtobufTraceSerializer.serializeRequest([...spans]);
  expect(Buffer.from(ours).toString('hex')).toBe(Buffer.from(theirs!).toString('hex'));
  return ours;
}

const long = (n: number, unit: string) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);

const EVERY_VALUE: Attributes = {
  empty: '',
  ascii: 'gpt-4o-mini',
  accents: 'Ça coûte 5 €',
  emoji: '🦊 fox',
  cjk: '狐狸跳过了懒狗',
  'lone surrogate': 'a\ud800b',
  'long ascii': long(40_000, 'x'),
  'long mixed': long(5_000, 'é😀a'),
  'exactly 127 bytes': long(127, 'y'),
  'exactly 128 bytes': long(128, 'y'),
  'key with ünïcode': 1,
  zero: 0,
  small: 7,
  'two bytes': 300,
  'u32 max': 0xffffffff,
  'above u32': 2 ** 40 + 3,
  'above 2^53': 2 ** 60,
  negative: -1,
  'negative large': -(2 ** 40) - 5,
  'int64 min': -(2 ** 63),
  float: 0.2,
  'negative float': -1.5e-7,
  'too big for int64': 2 ** 64,
  infinity: Number.POSITIVE_INFINITY,
  nan: Number.NaN,
  yes: true,
  no: false,
  strings: ['a', 'é', long(200, 'z')],
  numbers: [1, -2, 3.5],
  booleans: [true, false],
  'with holes': ['a', null, undefined, 'b'] as unknown as string[],
  'empty array': [],
};

describe('encodeTraceExport', () => {
  it('writes what OTel’s serializer writes for attributes of every type and length', () => {
    const spans = spansFrom((p) => p.getTracer('t').startSpan('values', { attributes: EVERY_VALUE }).end());
    const bytes = expectSameBytes(spans);
    const [span] = decodeTraceExport(bytes).spans;
    expect(span?.attributes['long ascii']).toBe(EVERY_VALUE['long ascii']);
    expect(span?.attributes.emoji).toBe('🦊 fox');
    expect(span?.attributes['negative large']).toBe(-(2 ** 40) - 5);
  });

  it('writes what OTel’s serializer writes for parents, kinds, events, links, status and trace state', () => {
    const spans = spansFrom((p) => {
      const tracer = p.getTracer('scope', '1.2.3');
      const remote = trace.setSpanContext(ROOT_CONTEXT, {
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
        traceState: new TraceState('vendor=value,other=1'),
      });
      const link: Link = {
        context: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.NONE, traceState: new TraceState('a=b') },
        attributes: { 'link.reason': 'retry of', attempt: 2 },
      };
      const root = tracer.startSpan('root', { kind: SpanKind.SERVER, links: [link] }, remote);
      root.addEvent('started', { phase: 'one', n: 1 });
      root.addEvent('no attributes');
      root.recordException(new TypeError('bad input é'));
      root.setStatus({ code: SpanStatusCode.ERROR, message: 'failed: 😀' });
      const child = tracer.startSpan('child', { kind: SpanKind.CLIENT }, trace.setSpan(remote, root));
      child.setStatus({ code: SpanStatusCode.OK });
      child.end();
      root.end();
      for (const kind of [SpanKind.INTERNAL, SpanKind.PRODUCER, SpanKind.CONSUMER]) tracer.startSpan(`kind ${kind}`, { kind }).end();
    });
    expectSameBytes(spans);
  });

  it('writes what OTel’s serializer writes for several resources and scopes, with schema URLs and scope attributes', () => {
    const first = spansFrom((p) => {
      p.getTracer('a').startSpan('a1').end();
      p.getTracer('b', '2.0.0', { schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' }).startSpan('b1').end();
      p.getTracer('a').startSpan('a2').end();
    });
    const second = spansFrom(
      (p) => p.getTracer('c').startSpan('c1', { attributes: { big: long(70_000, 'q') } }).end(),
      resourceFromAttributes({ 'service.name': 'other', 'wandb.entity': 'acme', numbers: [1, 2] }, { schemaUrl: 'https://example.com/schema' }),
    );
    expectSameBytes([...first, ...second, ...first]);
  });

  it('writes what OTel’s serializer writes for attributes dropped by the limits, on spans, events and links', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanLimits: { attributeCountLimit: 2, attributePerEventCountLimit: 1, attributePerLinkCountLimit: 1 },
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const link: Link = {
      context: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED },
      attributes: { one: 1, two: 2, three: 3 },
    };
    const span = provider.getTracer('limits').startSpan('limited', { attributes: { a: 1, b: 2, c: 3, d: 4 }, links: [link] });
    span.addEvent('crowded', { x: 1, y: 2 });
    span.end();
    const [finished] = exporter.getFinishedSpans();
    expect([finished!.droppedAttributesCount, finished!.events[0]!.droppedAttributesCount, finished!.links[0]!.droppedAttributesCount]).toEqual([2, 1, 2]);
    expectSameBytes([finished!]);
  });

  it('writes what OTel’s serializer writes for scopes with attributes, some dropped, or with none', () => {
    const spans = spansFrom((p) => {
      p.getTracer('with').startSpan('w').end();
      p.getTracer('without').startSpan('o').end();
      p.getTracer('all dropped').startSpan('d').end();
    });
    // The API of the SDK this is tested on has no way to give a tracer attributes; other SDKs (and OTel's 2.x
    // `InstrumentationScope`) carry them on the span's scope, which is all the encoder reads.
    const scoped = (span: ReadableSpan, extra: object) =>
      Object.assign(Object.create(span) as ReadableSpan, { instrumentationScope: { ...span.instrumentationScope, ...extra } });
    expectSameBytes([
      scoped(spans[0]!, { attributes: { 'scope.kind': 'llm', level: 2 }, droppedAttributesCount: 3 }),
      scoped(spans[1]!, { attributes: {} }),
      scoped(spans[2]!, { droppedAttributesCount: 4 }),
    ]);
  });

  it('writes an empty request for no spans, as OTel does', () => {
    expectSameBytes([]);
  });

  it('sends a batch of chat-sized spans that OTel’s serializer would write the same', () => {
    const content = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: long(2_000, 'Describe the fox. ') }] }]);
    const spans = spansFrom((p) => {
      for (let i = 0; i < 300; i++) {
        p.getTracer('weft/openai').startSpan('chat gpt-4o-mini', {
          kind: SpanKind.CLIENT,
          attributes: { 'gen_ai.input.messages': content, 'gen_ai.usage.input_tokens': i, 'gen_ai.request.temperature': 0.2 },
        }).end();
      }
    });
    expect(decodeTraceExport(expectSameBytes(spans)).spans).toHaveLength(300);
  });
});
