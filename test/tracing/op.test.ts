import { SpanStatusCode } from '@opentelemetry/api';
import { op, withSpan } from 'weft';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { configError } from '../helpers/config-error.js';
import { childrenOf, inputsOf, named, outputOf, startHarness, type TracingHarness } from './harness.js';

let h: TracingHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('op()', () => {
  it('names the span after the function and records named arguments and the return value', async () => {
    const add = op(function add(a: number, b: number) {
      return { sum: a + b };
    });
    const spans = await h.capture(() => add(2, 3));
    const span = named(spans, 'add');
    expect(inputsOf(span)).toEqual({ a: 2, b: 3 });
    expect(outputOf(span)).toEqual({ sum: 5 });
    expect(span.parentSpanId).toBeUndefined();
    expect(span.scope.name).toBe('weft');
  });

  it('emits inputs and output as the only input and output keys, so the trace service de-nests them', async () => {
    const echo = op(async function echo(text: string) {
      return text;
    });
    const spans = await h.capture(() => echo('hi'));
    const keys = Object.keys(named(spans, 'echo').attributes).sort();
    expect(keys).toEqual(['inputs', 'output']);
  });

  it('records a string output as the string itself, not as quoted JSON', async () => {
    const greet = op(async (name: string) => `hello ${name}`, { name: 'greet' });
    const spans = await h.capture(() => greet('ada'));
    expect(named(spans, 'greet').attributes.output).toBe('hello ada');
  });

  it('records numbers and booleans as typed attributes and leaves out an undefined result', async () => {
    const count = op((items: string[]) => items.length, { name: 'count' });
    const check = op((n: number) => n > 1, { name: 'check' });
    const nothing = op((_x: number) => undefined, { name: 'nothing' });
    const spans = await h.capture(() => [count(['a', 'b']), check(2), nothing(1)]);
    expect(Number(named(spans, 'count').attributes.output)).toBe(2);
    expect(named(spans, 'check').attributes.output).toBe(true);
    expect(named(spans, 'nothing').attributes).not.toHaveProperty('output');
  });

  it('records false, 0 and the empty string as text, since the trace service drops falsy values', async () => {
    const no = op(() => false, { name: 'no' });
    const zero = op(() => 0, { name: 'zero' });
    const empty = op(async () => '', { name: 'empty' });
    const spans = await h.capture(() => Promise.all([no(), zero(), empty()]));
    expect(['no', 'zero', 'empty'].map((name) => named(spans, name).attributes.output)).toEqual(['false', '0', '""']);
  });

  it('records a value whose JSON is a string as that string, without JSON quotes', async () => {
    class Marker {}
    const results: Record<string, unknown> = { date: new Date(0), big: 5n, sym: Symbol('s'), marker: new Marker() };
    const spans = await h.capture(() => Object.entries(results).map(([name, result]) => op(() => result, { name })()));
    expect(Object.keys(results).map((name) => named(spans, name).attributes.output)).toEqual([
      '1970-01-01T00:00:00.000Z',
      '5',
      'Symbol(s)',
      '[Marker]',
    ]);
  });

  it('records a custom attribute whose JSON is a string as that string', async () => {
    const stamped = op(() => 1, { name: 'stamped', attributes: { since: new Date(0), id: 7n } });
    const spans = await h.capture(() => stamped());
    expect(named(spans, 'stamped').attributes).toMatchObject({
      'wandb.attributes.since': '1970-01-01T00:00:00.000Z',
      'wandb.attributes.id': '7',
    });
  });

  it('records no inputs for a call without arguments', async () => {
    const ping = op(() => 'pong', { name: 'ping' });
    const spans = await h.capture(() => ping());
    expect(named(spans, 'ping').attributes).toEqual({ output: 'pong' });
  });

  it('uses options.name over the function name', async () => {
    const f = op(function internalName() {
      return 1;
    }, { name: 'Public.name' });
    const spans = await h.capture(() => f());
    expect(spans.map((s) => s.name)).toEqual(['Public.name']);
  });

  it('names arguments of arrow functions, defaults and rest parameters', async () => {
    const search = op(async (query: string, limit = 5, ...filters: string[]) => [query, limit, filters], {
      name: 'search',
    });
    const spans = await h.capture(() => search('cats', 3, 'a', 'b'));
    expect(inputsOf(named(spans, 'search'))).toEqual({ query: 'cats', limit: 3, filters: ['a', 'b'] });
  });

  it('falls back to argN for destructured parameters and functions without readable source', async () => {
    const pick = op(({ a }: { a: number }, [b]: number[]) => a + (b ?? 0), { name: 'pick' });
    const bound = op(Math.max, { name: 'max' });
    const spans = await h.capture(() => [pick({ a: 1 }, [2]), bound(1, 7)]);
    expect(inputsOf(named(spans, 'pick'))).toEqual({ arg0: { a: 1 }, arg1: [2] });
    expect(inputsOf(named(spans, 'max'))).toEqual({ arg0: 1, arg1: 7 });
    expect(named(spans, 'max').attributes.output).toBe(7);
  });

  it("records a tool's one object-pattern parameter as the inputs themselves", async () => {
    const getWeather = op(function get_weather({ city, unit = 'C' }: { city: string; unit?: string }) {
      return `${city}: 21°${unit}`;
    });
    const args = { city: 'Paris', unit: 'F' };
    const spans = await h.capture(() => [getWeather(args), getWeather({ city: 'Oslo' })]);
    const [first, second] = spans.filter((s) => s.name === 'get_weather');
    expect(inputsOf(first!)).toEqual({ city: 'Paris', unit: 'F' });
    expect(inputsOf(second!)).toEqual({ city: 'Oslo' });
    expect(args).toEqual({ city: 'Paris', unit: 'F' });
  });

  it('leaves out arguments past the parameters a function declares, and keeps them all for a rest parameter, `arguments` or unreadable source', async () => {
    // openai's runTools() calls a tool with its arguments and, after them, the whole runner.
    const lookup = op(function lookup(query: string) {
      return query.length;
    });
    const gather = op(function gather(first: string, ...more: unknown[]) {
      return [first, ...more].length;
    });
    const none = op(function none() {
      return 0;
    });
    // What TypeScript makes of `...values` for ES5, and what a wrapper (lodash's memoize) reads: every argument.
    const sum = op(function sum() {
      let total = 0;
      // biome-ignore lint/complexity/noArguments: what compiled code and wrappers do, which this test is about.
      for (let i = 0; i < arguments.length; i++) total += arguments[i] as number;
      return total;
    });
    const spans = await h.capture(() => {
      const call = lookup as unknown as (...args: unknown[]) => number;
      const callNone = none as unknown as (...args: unknown[]) => number;
      const callSum = sum as unknown as (...args: number[]) => number;
      return [call('cats', { messages: ['a long conversation'] }), gather('a', 'b', 'c'), callNone('ignored'), op(Math.min)(3, 1), callSum(1, 2, 3)];
    });
    expect(inputsOf(named(spans, 'sum'))).toEqual({ arg0: 1, arg1: 2, arg2: 3 });
    expect(inputsOf(named(spans, 'lookup'))).toEqual({ query: 'cats' });
    expect(inputsOf(named(spans, 'gather'))).toEqual({ first: 'a', more: ['b', 'c'] });
    expect(named(spans, 'none').attributes.inputs).toBeUndefined();
    expect(inputsOf(named(spans, 'min'))).toEqual({ arg0: 3, arg1: 1 });
  });

  it('nests calls under the calling op, also across awaits', async () => {
    const leaf = op(async function leaf(n: number) {
      await new Promise((r) => setTimeout(r, 1));
      return n * 2;
    });
    const root = op(async function root() {
      const a = await leaf(1);
      const b = await leaf(2);
      return a + b;
    });
    const spans = await h.capture(() => root());
    const rootSpan = named(spans, 'root');
    const leaves = childrenOf(spans, rootSpan);
    expect(leaves.map((s) => s.name)).toEqual(['leaf', 'leaf']);
    expect(leaves.every((s) => s.traceId === rootSpan.traceId)).toBe(true);
    expect(leaves.map((s) => inputsOf(s))).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('keeps `this` for methods', async () => {
    class Counter {
      step = 10;
      add = op(function add(this: Counter, n: number) {
        return n + this.step;
      });
    }
    const counter = new Counter();
    const spans = await h.capture(() => expect(counter.add(1)).toBe(11));
    expect(named(spans, 'add').attributes.output).toBe(11);
  });

  it('rethrows the same error instance from a sync function and records it on the span', async () => {
    const boom = new RangeError('out of range');
    const fails = op(function fails(_x: number): number {
      throw boom;
    });
    let caught: unknown;
    const spans = await h.capture(() => {
      try {
        fails(1);
      } catch (e) {
        caught = e;
      }
    });
    expect(caught).toBe(boom);
    const span = named(spans, 'fails');
    // The class in front of the message, as Node prints it: the trace service shows only the status message.
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'RangeError: out of range' });
    const event = span.events.find((e) => e.name === 'exception');
    expect(event?.attributes['exception.type']).toBe('RangeError');
    expect(event?.attributes['exception.message']).toBe('out of range');
    expect(span.attributes).not.toHaveProperty('output');
  });

  it("records an error subclass that names itself nowhere by its class, in the status and the exception event alike", async () => {
    class ValidationError extends Error {}
    const fails = op(function validate(): void {
      throw new ValidationError('no answer');
    });
    const spans = await h.capture(() => expect(() => fails()).toThrow(ValidationError));
    const span = named(spans, 'validate');
    expect(span.status.message).toBe('ValidationError: no answer');
    expect(span.events.find((e) => e.name === 'exception')?.attributes['exception.type']).toBe('ValidationError');
  });

  it('rethrows the same rejection from an async function and records it on the span', async () => {
    const boom = new Error('model unavailable');
    const fails = op(async function failsLater() {
      await Promise.resolve();
      throw boom;
    });
    let caught: unknown;
    const spans = await h.capture(() => fails().catch((e: unknown) => (caught = e)));
    expect(caught).toBe(boom);
    expect(named(spans, 'failsLater').status).toEqual({ code: SpanStatusCode.ERROR, message: 'Error: model unavailable' });
  });

  it("names an error's own class in the status, and the class alone for an empty message", async () => {
    class QuotaExceeded extends Error {}
    const quota = op(function quota() {
      throw new QuotaExceeded('daily quota used up');
    });
    const silent = op(function silent() {
      throw new TypeError('');
    });
    const spans = await h.capture(() => {
      expect(() => quota()).toThrow(QuotaExceeded);
      expect(() => silent()).toThrow(TypeError);
    });
    expect(named(spans, 'quota').status).toEqual({ code: SpanStatusCode.ERROR, message: 'QuotaExceeded: daily quota used up' });
    expect(named(spans, 'silent').status).toEqual({ code: SpanStatusCode.ERROR, message: 'TypeError' });
  });

  it('leaves out a display name the trace service would read as JSON, takes an empty one as none, and refuses one that is not text', async () => {
    const jsonNamed = op(function jsonNamed() {}, { displayName: '[1, 2]' });
    const emptyNamed = op(function emptyNamed() {}, { displayName: '' });
    const spans = await h.capture(() => {
      jsonNamed();
      emptyNamed();
      withSpan('blockJsonNamed', () => 1, { displayName: '{"step":1}' });
    });
    for (const name of ['jsonNamed', 'emptyNamed', 'blockJsonNamed']) {
      expect(named(spans, name).attributes).not.toHaveProperty('wandb.display_name');
    }
    const error = configError(() => op(function b() {}, { displayName: 42 as unknown as string }));
    expect(error.option).toBe('displayName');
    expect(error.message).toMatch(/`displayName` must be a string, got a number/);
  });

  it('leaves a JSON display name set through the span handle unset, without failing the call', async () => {
    const spans = await h.capture(() =>
      withSpan('handleNamed', (span) => {
        span.setDisplayName('{"step":1}');
        return 'ran';
      }),
    );
    expect(named(spans, 'handleNamed').attributes).not.toHaveProperty('wandb.display_name');
  });

  it('records a thrown non-Error value and rethrows it unchanged', async () => {
    const fails = op(function throwsString() {
      throw 'plain string';
    });
    let caught: unknown;
    const spans = await h.capture(() => {
      try {
        fails();
      } catch (e) {
        caught = e;
      }
    });
    expect(caught).toBe('plain string');
    expect(named(spans, 'throwsString').status.message).toBe('plain string');
  });

  it('records a thrown plain object as its JSON, with credential fields redacted', async () => {
    const fails = op(async function rateLimited() {
      throw { code: 'RATE_LIMIT', status: 429, apiKey: 'k-123' };
    });
    const spans = await h.capture(() => fails().catch(() => undefined));
    const span = named(spans, 'rateLimited');
    const expected = '{"code":"RATE_LIMIT","status":429,"apiKey":"[weft: redacted]"}';
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: expected });
    expect(span.events[0]?.attributes['exception.message']).toBe(expected);
  });

  it('records a thrown object without a prototype, which String() cannot convert', async () => {
    const fails = op(function bare() {
      throw Object.assign(Object.create(null), { reason: 'bare' });
    });
    const spans = await h.capture(() => {
      expect(() => fails()).toThrow();
    });
    expect(named(spans, 'bare').status.message).toBe('{"reason":"bare"}');
  });

  it('returns a Promise subclass (like openai\'s APIPromise) as the very same object and records its value', async () => {
    class ApiPromise extends Promise<number> {
      extra() {
        return 'still here';
      }
    }
    const pending = new ApiPromise((resolve) => setTimeout(() => resolve(42), 1));
    const get = op(() => pending, { name: 'get' });
    const spans = await h.capture(async () => {
      const result = get();
      expect(result).toBe(pending);
      expect(result.extra()).toBe('still here');
      expect(await result).toBe(42);
    });
    expect(named(spans, 'get').attributes.output).toBe(42);
  });

  it('never calls then() of a thenable that is not a promise, since that may be what runs it', async () => {
    let ran = 0;
    // A lazy query builder: it runs when awaited.
    const query = {
      // biome-ignore lint/suspicious/noThenProperty: a thenable is exactly what this test needs
      then(resolve: (rows: string[]) => void) {
        ran += 1;
        resolve(['row']);
      },
    };
    const build = op(() => query, { name: 'build' });
    const spans = await h.capture(() => {
      expect(build()).toBe(query);
    });
    expect(ran).toBe(0);
    expect(named(spans, 'build').attributes).not.toHaveProperty('output');
  });

  it('records display name, kind and custom attributes', async () => {
    const judge = op(async (answer: string) => answer.length > 0, {
      name: 'judge',
      displayName: 'Judge (strict)',
      kind: 'evaluation',
      attributes: { version: 3, rubric: { strict: true } },
    });
    const spans = await h.capture(() => judge('yes'));
    const attrs = named(spans, 'judge').attributes;
    expect(attrs['wandb.display_name']).toBe('Judge (strict)');
    expect(attrs['weave.span.kind']).toBe('evaluation');
    expect(Number(attrs['wandb.attributes.version'])).toBe(3);
    expect(JSON.parse(String(attrs['wandb.attributes.rubric']))).toEqual({ strict: true });
  });

  it('keeps the function name, length and exact TypeScript type', () => {
    async function predict(question: string, k?: number): Promise<string> {
      return `${question}${k ?? ''}`;
    }
    const traced = op(predict);
    expectTypeOf(traced).toEqualTypeOf<typeof predict>();
    expect(traced.name).toBe('predict');
    expect(traced.length).toBe(predict.length);
    expect(op(traced)).toBe(traced);
  });

  it("keeps the function's own properties, such as a tool's description and schema", () => {
    const search = Object.assign(async (query: string) => query, { description: 'Searches the docs', schema: { type: 'object' } });
    const traced = op(search, { name: 'search' });
    expect(traced.description).toBe('Searches the docs');
    expect(traced.schema).toBe(search.schema);
  });

  it('builds an instance of the wrapped constructor with new, as new on the function itself does', () => {
    function Point(this: { x: number }, x: number) {
      this.x = x;
    }
    Point.prototype.twice = function (this: { x: number }) {
      return this.x * 2;
    };
    const Traced = op(Point) as unknown as new (x: number) => { x: number; twice(): number };
    const point = new Traced(2);
    expect(point).toBeInstanceOf(Point);
    expect(point.twice()).toBe(4);
  });

  it('wraps the function of an op given again with a new name, once: one span, with its parameter names', async () => {
    const ask = op(async function ask(question: string) {
      return question.length;
    });
    const renamed = op(ask, { name: 'ask-v2' });
    const spans = await h.capture(() => renamed('why?'));
    expect(spans.map((s) => s.name)).toEqual(['ask-v2']);
    expect(inputsOf(named(spans, 'ask-v2'))).toEqual({ question: 'why?' });
  });

  it('keeps the options of an op given again under the new ones: content left out stays out', async () => {
    const secret = op(async (text: string) => text.length, { name: 'secret', captureContent: false, kind: 'tool', attributes: { team: 'x' } });
    const renamed = op(secret, { name: 'secret-v2', captureContent: undefined });
    const spans = await h.capture(() => renamed('my card is 4111'));
    const span = named(spans, 'secret-v2');
    expect(span.attributes).not.toHaveProperty(['inputs']);
    expect(span.attributes).not.toHaveProperty(['output']);
    expect(span.attributes['wandb.attributes.team']).toBe('x');
    expect(span.attributes['weave.span.kind']).toBe('tool');
  });

  it('ends the span as failed for an error whose message cannot be read', async () => {
    const unreadable = new Error('x');
    Object.defineProperty(unreadable, 'message', {
      get() {
        throw new Error('no message today');
      },
    });
    const fails = op(function fails() {
      throw unreadable;
    });
    let thrown: unknown;
    const spans = await h.capture(() => {
      try {
        fails();
      } catch (error) {
        thrown = error;
      }
    });
    expect(thrown).toBe(unreadable);
    expect(named(spans, 'fails').status.code).toBe(SpanStatusCode.ERROR);
  });
});
