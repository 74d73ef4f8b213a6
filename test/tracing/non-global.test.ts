import { context, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { op, register, type WeftHandle, withSpan, withThread } from 'weft';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { named } from './harness.js';

let receiver: OtlpReceiver;
let weft: WeftHandle;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  weft = register({ baseUrl: receiver.url, project: 'test/non-global', global: false, instrumentations: [], flushOnExit: false });
});
afterAll(async () => {
  await weft.shutdown();
  await receiver.close();
});

it('nests ops and blocks under their callers, across awaits, with register({ global: false })', async () => {
  const inner = op(async function inner() {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return withSpan('block', () => 'done');
  });
  const outer = op(async function outer() {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return inner();
  });
  await withThread('thread-1', () => outer());
  await weft.forceFlush();

  const spans = receiver.spans();
  const [o, i, b] = [named(spans, 'outer'), named(spans, 'inner'), named(spans, 'block')];
  expect(i.parentSpanId).toBe(o.spanId);
  expect(b.parentSpanId).toBe(i.spanId);
  expect([o.traceId, i.traceId, b.traceId]).toEqual([o.traceId, o.traceId, o.traceId]);
  expect(spans.map((s) => s.attributes['wandb.thread_id'])).toEqual(['thread-1', 'thread-1', 'thread-1']);
});

it('leaves the global context and tracer provider as they were', () => {
  expect(weft.isGlobal).toBe(false);
  const probe = context.active().setValue(Symbol('probe'), 1);
  expect(context.with(probe, () => context.active())).not.toBe(probe);
  expect(trace.getTracerProvider()).not.toBe(weft.tracerProvider);
});
