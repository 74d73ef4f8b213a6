import { context, propagation, trace } from '@opentelemetry/api';
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
    expect(span.attributes).not.toHaveProperty('gen_ai.conversation.id');
  });

  it('gives a GenAI span the thread as gen_ai.conversation.id too', async () => {
    const incoming = propagation.extract(context.active(), { baggage: 'wandb.thread_id=thread-from-upstream' });
    const spans = await h.capture(() =>
      context.with(incoming, () =>
        trace.getTracer('another-genai-library').startActiveSpan('chat some-model', { attributes: { 'gen_ai.operation.name': 'chat' } }, (s) => s.end()),
      ),
    );
    expect(named(spans, 'chat some-model').attributes).toMatchObject({
      'wandb.thread_id': 'thread-from-upstream',
      'gen_ai.conversation.id': 'thread-from-upstream',
    });
  });
});
