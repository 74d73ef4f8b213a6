import { context, DiagLogLevel, diag, propagation, trace } from '@opentelemetry/api';
import { currentSpan, getWeftContext, op, withContext, withSpan, withThread } from 'weft';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configError } from '../helpers/config-error.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { childrenOf, named, startHarness, type TracingHarness } from './harness.js';

let h: TracingHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const inner = op(async function inner() {
  await new Promise((r) => setTimeout(r, 1));
  return 'x';
});
const turnRoot = op(async function turnRoot() {
  return inner();
});

describe('withThread()', () => {
  it('puts the thread id on every span in scope, across awaits', async () => {
    const spans = await h.capture(() => withThread('thread-1', () => turnRoot()));
    expect(spans.map((s) => s.attributes['wandb.thread_id'])).toEqual(['thread-1', 'thread-1']);
  });

  it('marks only the outermost span of a turn with wandb.is_turn', async () => {
    const spans = await h.capture(() => withThread('thread-2', () => turnRoot()));
    expect(named(spans, 'turnRoot').attributes['wandb.is_turn']).toBe(true);
    expect(named(spans, 'inner').attributes).not.toHaveProperty('wandb.is_turn');
  });

  it('makes each top-level call in the thread its own turn', async () => {
    const spans = await h.capture(() =>
      withThread('thread-3', async () => {
        await turnRoot();
        await turnRoot();
      }),
    );
    const roots = spans.filter((s) => s.name === 'turnRoot');
    expect(roots.map((s) => s.attributes['wandb.is_turn'])).toEqual([true, true]);
    expect(spans.filter((s) => s.name === 'inner').every((s) => !('wandb.is_turn' in s.attributes))).toBe(true);
  });

  it('does not mark turns when turn is false', async () => {
    const spans = await h.capture(() => withThread('thread-4', () => turnRoot(), { turn: false }));
    expect(spans.every((s) => !('wandb.is_turn' in s.attributes))).toBe(true);
    expect(spans.every((s) => s.attributes['wandb.thread_id'] === 'thread-4')).toBe(true);
  });

  it('puts nothing on spans outside the scope', async () => {
    const spans = await h.capture(async () => {
      await withThread('thread-5', () => inner());
      await inner();
    });
    expect(spans.map((s) => s.attributes['wandb.thread_id'])).toEqual(['thread-5', undefined]);
  });

  it('reaches spans started by other tracers (such as the chat instrumentation)', async () => {
    const spans = await h.capture(() =>
      withThread('thread-6', () => trace.getTracer('another-library').startActiveSpan('foreign', (s) => s.end())),
    );
    const foreign = named(spans, 'foreign');
    expect(foreign.attributes['wandb.thread_id']).toBe('thread-6');
    expect(foreign.attributes['wandb.is_turn']).toBe(true);
  });
});

describe('withContext()', () => {
  it('records user, session, metadata and tags on every span in scope', async () => {
    const spans = await h.capture(() =>
      withContext(
        { threadId: 't', userId: 'user-7', sessionId: 'sess-9', metadata: { plan: 'pro', seats: 3 }, tags: ['beta'] },
        () => turnRoot(),
      ),
    );
    for (const span of spans) {
      expect(span.attributes['user.id']).toBe('user-7');
      expect(span.attributes['session.id']).toBe('sess-9');
      expect(span.attributes['wandb.attributes.plan']).toBe('pro');
      expect(Number(span.attributes['wandb.attributes.seats'])).toBe(3);
      expect(span.attributes['wandb.attributes.tags']).toEqual(['beta']);
    }
  });

  it('records the user and session as custom attributes too, unless the metadata has its own of those names', async () => {
    const spans = await h.capture(async () => {
      await withContext({ userId: 'alice', sessionId: 's-1' }, () => withSpan('plainUser', () => 1));
      await withContext({ userId: 'alice', metadata: { user_id: 'internal-7' } }, () => withSpan('ownUserId', () => 1));
    });
    expect(named(spans, 'plainUser').attributes).toMatchObject({ 'wandb.attributes.user_id': 'alice', 'wandb.attributes.session_id': 's-1' });
    expect(named(spans, 'ownUserId').attributes).toMatchObject({ 'user.id': 'alice', 'wandb.attributes.user_id': 'internal-7' });
  });

  it('merges nested scopes: inner values win, metadata merges, tags add up', async () => {
    let seen: unknown;
    const spans = await h.capture(() =>
      withContext({ threadId: 'outer', userId: 'u1', metadata: { a: 1, b: 1 }, tags: ['x'] }, () =>
        withContext({ userId: 'u2', metadata: { b: 2 }, tags: ['y'] }, () => {
          seen = getWeftContext();
          return inner();
        }),
      ),
    );
    const span = named(spans, 'inner');
    expect(span.attributes['wandb.thread_id']).toBe('outer');
    expect(span.attributes['user.id']).toBe('u2');
    expect(Number(span.attributes['wandb.attributes.a'])).toBe(1);
    expect(Number(span.attributes['wandb.attributes.b'])).toBe(2);
    expect(span.attributes['wandb.attributes.tags']).toEqual(['x', 'y']);
    expect(seen).toMatchObject({ threadId: 'outer', userId: 'u2', tags: ['x', 'y'] });
  });

  it('starts a turn for a span inside a different thread nested in another', async () => {
    const spans = await h.capture(() =>
      withThread('a', () => withSpan('outerTurn', () => withThread('b', () => withSpan('innerTurn', () => 1)))),
    );
    expect(named(spans, 'outerTurn').attributes['wandb.is_turn']).toBe(true);
    expect(named(spans, 'innerTurn').attributes['wandb.is_turn']).toBe(true);
    expect(named(spans, 'innerTurn').attributes['wandb.thread_id']).toBe('b');
    expect(childrenOf(spans, named(spans, 'outerTurn')).map((s) => s.name)).toEqual(['innerTurn']);
  });

  it('moves a custom attribute that another one extends to <key>._value, so the trace service keeps the span', async () => {
    const spans = await h.capture(() =>
      withContext({ metadata: { model: 'gpt-4o', 'eval.k': 3, eval: true } }, () =>
        withSpan('tagged', () => currentSpan().setAttributes({ 'model.version': '2024-06', 'eval.k.max': 5 })),
      ),
    );
    const custom = Object.entries(named(spans, 'tagged').attributes).filter(([key]) => key.startsWith('wandb.attributes.'));
    expect(Object.fromEntries(custom)).toEqual({
      'wandb.attributes.model._value': 'gpt-4o',
      'wandb.attributes.model.version': '2024-06',
      'wandb.attributes.eval._value': true,
      'wandb.attributes.eval.k._value': 3,
      'wandb.attributes.eval.k.max': 5,
    });
  });

  it('moves a custom model off a span with a model of its own, and says where it went, once', async () => {
    const logger = recordingLogger();
    diag.setLogger(logger, DiagLogLevel.WARN);
    const spans = await h.capture(() =>
      withContext({ metadata: { model: 'my-eval-model', plan: 'pro' } }, async () => {
        const tracer = trace.getTracer('another-library');
        tracer.startSpan('chat gpt-4o', { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' } }).end();
        tracer.startSpan('chat gpt-4o again', { attributes: { 'gen_ai.request.model': 'gpt-4o' } }).end();
        await withSpan('ownModel', () => 1);
      }),
    );
    expect(named(spans, 'chat gpt-4o').attributes).toMatchObject({ 'wandb.attributes.model_custom': 'my-eval-model', 'wandb.attributes.plan': 'pro' });
    expect(named(spans, 'chat gpt-4o').attributes).not.toHaveProperty('wandb.attributes.model');
    expect(named(spans, 'ownModel').attributes['wandb.attributes.model']).toBe('my-eval-model');
    const said = logger.lines.filter((line) => line.includes('model_custom'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('custom attribute "wandb.attributes.model" was moved to "wandb.attributes.model_custom"');
  });

  it('leaves W3C baggage alone by default and writes it when asked', () => {
    withContext({ threadId: 'private', userId: 'u' }, () => {
      expect(propagation.getBaggage(context.active())).toBeUndefined();
    });
    withContext({ threadId: 'shared', userId: 'u', sessionId: 's', baggage: true }, () => {
      const bag = propagation.getBaggage(context.active());
      expect(bag?.getEntry('wandb.thread_id')?.value).toBe('shared');
      expect(bag?.getEntry('user.id')?.value).toBe('u');
      expect(bag?.getEntry('session.id')?.value).toBe('s');
      const headers: Record<string, string> = {};
      propagation.inject(context.active(), headers);
      expect(headers.baggage).toContain('wandb.thread_id=shared');
    });
  });

  it('sends none of the outer scope\'s baggage from an inner scope with baggage: false', () => {
    withContext({ threadId: 'outer', userId: 'alice', baggage: true }, () => {
      withContext({ threadId: 'private', baggage: false }, () => {
        const headers: Record<string, string> = {};
        propagation.inject(context.active(), headers);
        expect(headers).not.toHaveProperty('baggage');
      });
    });
  });

  it('keeps baggage entries of others when an inner scope turns baggage off', () => {
    const incoming = propagation.extract(context.active(), { baggage: 'tenant=acme,wandb.thread_id=upstream' });
    context.with(incoming, () =>
      withContext({ threadId: 'private', baggage: false }, () => {
        const headers: Record<string, string> = {};
        propagation.inject(context.active(), headers);
        expect(headers.baggage).toBe('tenant=acme');
      }),
    );
  });

  it('rejects an empty thread id with an error naming the option', () => {
    const error = configError(() => withThread('', () => 1));
    expect(error.option).toBe('threadId');
    expect(error.message).toMatch(/`threadId` must be a non-empty string, got an empty string/);
  });

  it('leaves out a thread id the trace service would read as JSON, runs the code all the same, and keeps one that only starts like it', async () => {
    const spans = await h.capture(async () => {
      expect(await withThread('{"user":1,"conversation":2}', () => withSpan('jsonThread', () => 'ran'))).toBe('ran');
      await withContext({ threadId: '[1, 2]', userId: 'u' }, () => withSpan('jsonThreadWithUser', () => 1));
      await withThread('[draft] conversation 12', () => inner());
    });
    expect(named(spans, 'jsonThread').attributes).not.toHaveProperty('wandb.thread_id');
    expect(named(spans, 'jsonThreadWithUser').attributes).not.toHaveProperty('wandb.thread_id');
    expect(named(spans, 'jsonThreadWithUser').attributes['user.id']).toBe('u');
    expect(named(spans, 'inner').attributes['wandb.thread_id']).toBe('[draft] conversation 12');
  });

  it('does not file the spans of a JSON thread id under an outer thread', async () => {
    let seen: unknown;
    const spans = await h.capture(() =>
      withThread('conv-outer', () =>
        withThread('{"a":1}', () =>
          withSpan('nestedJsonThread', () => {
            seen = getWeftContext()?.threadId;
          }),
        ),
      ),
    );
    expect(named(spans, 'nestedJsonThread').attributes).not.toHaveProperty('wandb.thread_id');
    expect(named(spans, 'nestedJsonThread').attributes).not.toHaveProperty('wandb.is_turn');
    expect(seen).toBe('{"a":1}');
  });
});
