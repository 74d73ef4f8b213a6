import { currentSpan, op, withContext, withSpan, withThread } from 'weft';
import { describe, expect, it } from 'vitest';

// No register() in this file: with no tracer provider, every helper must behave exactly like the plain code.
describe('without a registered tracer provider', () => {
  it('op() returns the same results, also for async functions and generators', async () => {
    const add = op((a: number, b: number) => a + b, { name: 'add' });
    const later = op(async (x: string) => x.toUpperCase(), { name: 'later' });
    const gen = op(function* gen() {
      yield 1;
      yield 2;
    });
    expect(add(1, 2)).toBe(3);
    expect(await later('a')).toBe('A');
    expect([...gen()]).toEqual([1, 2]);
  });

  it('op() rethrows the same error', async () => {
    const boom = new Error('boom');
    const fails = op(async () => {
      throw boom;
    });
    await expect(fails()).rejects.toBe(boom);
  });

  it('withSpan(), withContext() and currentSpan() run their blocks and return their values', () => {
    const value = { v: 1 };
    expect(withSpan('block', (span) => span.setOutput(1) && value)).toBe(value);
    expect(withContext({ threadId: 't' }, () => withThread('u', () => currentSpan().setAttribute('k', 1) && 7))).toBe(7);
  });

  it('an argument that cannot be read does not stop the call', () => {
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const identity = op((x: unknown) => x, { name: 'identity' });
    expect(identity(revoked.proxy)).toBe(revoked.proxy);
  });
});
