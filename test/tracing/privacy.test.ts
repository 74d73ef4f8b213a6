import { configureTracing, op, restoreTracing, withSpan } from 'weft';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inputsOf, named, outputOf, startHarness, type TracingHarness } from './harness.js';

let h: TracingHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const login = (email: string, attempt: number) => ({ welcome: email, attempt });

describe('privacy settings', () => {
  let restore: (() => void) | undefined;
  afterEach(() => {
    restore?.();
    restore = undefined;
  });

  it('records neither inputs nor output with captureContent: false, but keeps name, errors and attributes', async () => {
    const traced = op(login, { name: 'login', captureContent: false, attributes: { team: 'a' } });
    const spans = await h.capture(() => traced('ada@example.com', 1));
    const span = named(spans, 'login');
    expect(span.attributes).not.toHaveProperty('inputs');
    expect(span.attributes).not.toHaveProperty('output');
    expect(span.attributes['wandb.attributes.team']).toBe('a');
  });

  it("records both with captureContent: 'all', and neither with 'none', the variable's words", async () => {
    const all = op(login, { name: 'all', captureContent: 'all' });
    const none = op(login, { name: 'none', captureContent: 'none' });
    const spans = await h.capture(async () => {
      await all('ada@example.com', 1);
      await none('ada@example.com', 1);
    });
    expect(inputsOf(named(spans, 'all'))).toEqual({ email: 'ada@example.com', attempt: 1 });
    expect(named(spans, 'all').attributes).toHaveProperty('output');
    expect(named(spans, 'none').attributes).not.toHaveProperty('inputs');
    expect(named(spans, 'none').attributes).not.toHaveProperty('output');
  });

  it('refuses a captureContent it does not know where it is given, naming the option', () => {
    expect(() => op(login, { captureContent: 'some' as never })).toThrow(/captureContent/);
  });

  it("records only the inputs with captureContent: 'input'", async () => {
    const traced = op(login, { name: 'login', captureContent: 'input' });
    const spans = await h.capture(() => traced('ada@example.com', 1));
    expect(inputsOf(named(spans, 'login'))).toEqual({ email: 'ada@example.com', attempt: 1 });
    expect(named(spans, 'login').attributes).not.toHaveProperty('output');
  });

  it('applies redactContent to inputs and output, without touching the values the app gets', async () => {
    const mask = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll(/[\w.]+@[\w.]+/g, '<email>'));
    const traced = op(login, { name: 'login', redactContent: mask });
    let result: unknown;
    const spans = await h.capture(() => {
      result = traced('ada@example.com', 2);
    });
    expect(result).toEqual({ welcome: 'ada@example.com', attempt: 2 });
    const span = named(spans, 'login');
    expect(inputsOf(span)).toEqual({ email: '<email>', attempt: 2 });
    expect(outputOf(span)).toEqual({ welcome: '<email>', attempt: 2 });
  });

  it('leaves a value out when redactContent returns null or throws', async () => {
    const traced = op(login, {
      name: 'login',
      redactContent: (value, direction) => {
        if (direction === 'input') return null;
        throw new Error(`cannot clean ${typeof value}`);
      },
    });
    const spans = await h.capture(() => traced('ada@example.com', 3));
    expect(named(spans, 'login').attributes).not.toHaveProperty('inputs');
    expect(named(spans, 'login').attributes).not.toHaveProperty('output');
  });

  it('applies process-wide settings from configureTracing() to every op and block', async () => {
    const previous = configureTracing({ captureContent: 'output' });
    restore = () => restoreTracing(previous);
    const traced = op(login, { name: 'login' });
    const spans = await h.capture(async () => {
      traced('ada@example.com', 4);
      withSpan('block', () => 'done', { inputs: { secret: 'x' } });
    });
    expect(named(spans, 'login').attributes).not.toHaveProperty('inputs');
    expect(outputOf(named(spans, 'login'))).toEqual({ welcome: 'ada@example.com', attempt: 4 });
    expect(named(spans, 'block').attributes).not.toHaveProperty('inputs');
    expect(named(spans, 'block').attributes.output).toBe('done');
  });

  it('cuts an output longer than maxAttributeLength and keeps it valid JSON', async () => {
    const big = op(() => ({ text: 'y'.repeat(50_000) }), { name: 'big', maxAttributeLength: 2_000 });
    const spans = await h.capture(() => big());
    const raw = String(named(spans, 'big').attributes.output);
    expect(raw.length).toBeLessThanOrEqual(2_000);
    expect((JSON.parse(raw) as { text: string }).text).toMatch(/…\[weft: \d+ more chars\]$/);
  });
});
