import { context, propagation } from '@opentelemetry/api';
import { op, WeftContextSpanProcessor } from 'weft';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { named, startHarness, type TracingHarness } from './harness.js';

let h: TracingHarness;
beforeAll(async () => {
  // A service that reads thread, user and session from the baggage of incoming requests.
  h = await startHarness({ spanProcessors: [new WeftContextSpanProcessor({ fromBaggage: true })] });
});
afterAll(() => h.close());

const handle = op(async function handleRequest(body: string) {
  return body.length;
});

describe('WeftContextSpanProcessor({ fromBaggage: true })', () => {
  it('takes thread, user and session from incoming W3C baggage, without marking a turn', async () => {
    const incoming = propagation.extract(context.active(), {
      baggage: 'wandb.thread_id=thread-from-upstream,user.id=u-1,session.id=s-1',
    });
    const spans = await h.capture(() => context.with(incoming, () => handle('hello')));
    const span = named(spans, 'handleRequest');
    expect(span.attributes['wandb.thread_id']).toBe('thread-from-upstream');
    expect(span.attributes['user.id']).toBe('u-1');
    expect(span.attributes['session.id']).toBe('s-1');
    expect(span.attributes).not.toHaveProperty('wandb.is_turn');
  });
});
