import { SpanStatusCode } from '@opentelemetry/api';
import { op } from 'weft';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configError } from '../helpers/config-error.js';
import { childrenOf, inputsOf, named, outputOf, startHarness, type TracingHarness } from './harness.js';

let h: TracingHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const child = op(function child(n: number) {
  return n;
});

describe('op() over generators', () => {
  it('makes one span over a whole sync generator, with the yields as output and nested spans inside', async () => {
    const numbers = op(function* numbers(limit: number) {
      for (let i = 0; i < limit; i++) yield child(i);
    });
    const spans = await h.capture(() => {
      expect([...numbers(3)]).toEqual([0, 1, 2]);
    });
    const span = named(spans, 'numbers');
    expect(inputsOf(span)).toEqual({ limit: 3 });
    expect(outputOf(span)).toEqual([0, 1, 2]);
    expect(childrenOf(spans, span).map((s) => s.name)).toEqual(['child', 'child', 'child']);
  });

  it('makes one span over a whole async generator that ends when iteration ends', async () => {
    const tokens = op(async function* tokens(text: string) {
      for (const word of text.split(' ')) {
        await new Promise((r) => setTimeout(r, 1));
        yield child(word.length);
      }
    });
    const seen: number[] = [];
    const spans = await h.capture(async () => {
      for await (const t of tokens('a bb ccc')) seen.push(t);
    });
    expect(seen).toEqual([1, 2, 3]);
    const span = named(spans, 'tokens');
    expect(outputOf(span)).toEqual([1, 2, 3]);
    expect(childrenOf(spans, span).map((s) => s.name)).toEqual(['child', 'child', 'child']);
  });

  it('ends the span when the consumer stops early', async () => {
    const endless = op(function* endless() {
      let i = 0;
      while (true) yield i++;
    });
    const spans = await h.capture(() => {
      for (const n of endless()) if (n === 2) break;
    });
    expect(outputOf(named(spans, 'endless'))).toEqual([0, 1, 2]);
  });

  it('keeps only the first yields and counts the rest', async () => {
    const many = op(
      function* many() {
        for (let i = 0; i < 10; i++) yield i;
      },
      { maxYields: 3 },
    );
    const spans = await h.capture(() => [...many()]);
    expect(outputOf(named(spans, 'many'))).toEqual([0, 1, 2, '[weft: 7 more items]']);
  });

  it('records the text of a generator that yields only strings, a streamed answer, however many pieces it has', async () => {
    const pieces = Array.from({ length: 250 }, (_, i) => `w${i} `);
    const answer = op(async function* stream_answer(question: string) {
      for (const piece of pieces) yield piece;
      return question;
    });
    const left = op(function* left_early() {
      yield 'Hel';
      yield 'lo';
      yield ' never read';
    });
    const spans = await h.capture(async () => {
      const received: string[] = [];
      for await (const piece of answer('why?')) received.push(piece);
      expect(received).toEqual(pieces);
      for (const piece of left()) if (piece === 'lo') break;
    });
    expect(named(spans, 'stream_answer').attributes.output).toBe(pieces.join(''));
    expect(named(spans, 'left_early').attributes.output).toBe('Hello');
  });

  it('keeps a list of strings as the values with joinStrings: false, and refuses a bad generator option by name', async () => {
    const files = op(
      function* files() {
        yield 'a.txt';
        yield 'b.txt';
      },
      { joinStrings: false },
    );
    const spans = await h.capture(() => [...files()]);
    expect(outputOf(named(spans, 'files'))).toEqual(['a.txt', 'b.txt']);
    const badJoin = configError(() => op(function* f() {}, { joinStrings: 'no' as never }));
    expect(badJoin.option).toBe('joinStrings');
    expect(badJoin.message).toMatch(/`joinStrings` must be true or false, got a string/);
    const badMax = configError(() => op(function* f() {}, { maxYields: -1 }));
    expect(badMax.option).toBe('maxYields');
    expect(badMax.message).toMatch(/`maxYields` must be a whole number of values \(0 or more\), got -1/);
  });

  it('cuts a joined text past a million characters, saying how many more there were', async () => {
    const piece = 'x'.repeat(1000);
    const long = op(
      function* long() {
        for (let i = 0; i < 1100; i++) yield piece;
      },
      { maxAttributeLength: 2_000_000 },
    );
    const spans = await h.capture(() => [...long()].length);
    expect(named(spans, 'long').attributes.output).toBe(`${'x'.repeat(1_000_000)}…[weft: 100000 more chars]`);
  });

  it('keeps the values, not a text, once one of them is not a string', async () => {
    const mixed = op(function* mixed() {
      yield 'a';
      yield 2;
      yield 'c';
    });
    const spans = await h.capture(() => [...mixed()]);
    expect(outputOf(named(spans, 'mixed'))).toEqual(['a', 2, 'c']);
  });

  it('records an error thrown inside an async generator and rethrows the same instance', async () => {
    const boom = new Error('stream broke');
    const broken = op(async function* broken() {
      yield 1;
      throw boom;
    });
    let caught: unknown;
    const spans = await h.capture(async () => {
      try {
        for await (const _ of broken()) {
          // consume
        }
      } catch (e) {
        caught = e;
      }
    });
    expect(caught).toBe(boom);
    const span = named(spans, 'broken');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Error: stream broke' });
    expect(span.events.map((e) => e.name)).toContain('exception');
  });

  it('passes values sent with next() into the generator and returns its return value', async () => {
    const accumulator = op(function* accumulator(): Generator<number, string, number> {
      let total = 0;
      while (total < 5) total += yield total;
      return `total ${total}`;
    });
    const spans = await h.capture(() => {
      const gen = accumulator();
      expect(gen.next().value).toBe(0);
      expect(gen.next(2).value).toBe(2);
      expect(gen.next(4)).toEqual({ done: true, value: 'total 6' });
    });
    expect(outputOf(named(spans, 'accumulator'))).toEqual([0, 2]);
  });

  it('starts no span for a generator that is never iterated', async () => {
    const idle = op(function* idle() {
      yield 1;
    });
    const spans = await h.capture(() => {
      idle();
    });
    expect(spans.filter((s) => s.name === 'idle')).toEqual([]);
  });

  it('starts no span for a generator closed before it ran', async () => {
    const closed = op(function* closed() {
      yield 1;
    });
    const spans = await h.capture(() => {
      expect(closed().return(undefined)).toEqual({ done: true, value: undefined });
    });
    expect(spans.filter((s) => s.name === 'closed')).toEqual([]);
  });
});
