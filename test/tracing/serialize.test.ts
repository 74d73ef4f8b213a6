import { currentSpan, op, safeStringify } from 'weft';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputsOf, named, outputOf, startHarness, type TracingHarness } from './harness.js';

describe('safeStringify()', () => {
  it('writes circular references as a marker', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    a.list = [a];
    expect(JSON.parse(safeStringify(a))).toEqual({ name: 'a', self: '[Circular]', list: ['[Circular]'] });
  });

  it('writes a value seen twice (not a cycle) in full both times', () => {
    const shared = { x: 1 };
    expect(JSON.parse(safeStringify({ a: shared, b: shared }))).toEqual({ a: { x: 1 }, b: { x: 1 } });
  });

  it('writes BigInt, Date, NaN and Infinity as strings', () => {
    const text = safeStringify({ big: 2n ** 70n, at: new Date(0), nan: Number.NaN, inf: -Infinity });
    expect(JSON.parse(text)).toEqual({
      big: '1180591620717411303424',
      at: '1970-01-01T00:00:00.000Z',
      nan: 'NaN',
      inf: '-Infinity',
    });
  });

  it('writes Map as an object (or entries when keys are objects) and Set as an array', () => {
    expect(JSON.parse(safeStringify(new Map<unknown, unknown>([['a', 1], [2, 'b']])))).toEqual({ a: 1, 2: 'b' });
    expect(JSON.parse(safeStringify(new Map([[{ k: 1 }, 'v']])))).toEqual([[{ k: 1 }, 'v']]);
    expect(JSON.parse(safeStringify(new Set([1, 'two'])))).toEqual([1, 'two']);
  });

  it('summarises Buffer, typed arrays and ArrayBuffer instead of writing their bytes', () => {
    const text = safeStringify({ buf: Buffer.alloc(2048), f32: new Float32Array(1536), raw: new ArrayBuffer(8) });
    expect(JSON.parse(text)).toEqual({
      buf: '[Buffer: 2048 bytes]',
      f32: '[Float32Array: 1536 items]',
      raw: '[ArrayBuffer: 8 bytes]',
    });
  });

  it('writes errors with name, message, own fields and cause', () => {
    const error = new TypeError('bad input', { cause: new Error('root cause') });
    (error as TypeError & { code: string }).code = 'E_BAD';
    expect(JSON.parse(safeStringify(error))).toEqual({
      name: 'TypeError',
      message: 'bad input',
      code: 'E_BAD',
      cause: { name: 'Error', message: 'root cause' },
    });
  });

  it('writes class instances by their fields, or by their class name when they have none', () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    class Opaque {
      #secret = 1;
      peek() {
        return this.#secret;
      }
    }
    expect(JSON.parse(safeStringify({ p: new Point(1, 2), o: new Opaque() }))).toEqual({ p: { x: 1, y: 2 }, o: '[Opaque]' });
  });

  it('writes functions and symbols as descriptions and treats undefined as JSON does', () => {
    function handler() {}
    const text = safeStringify({ fn: handler, sym: Symbol('tag'), gone: undefined, list: [undefined, 1] });
    expect(JSON.parse(text)).toEqual({ fn: '[Function handler]', sym: 'Symbol(tag)', list: [null, 1] });
    expect(safeStringify(undefined)).toBe('null');
  });

  it('truncates a very large value with markers and keeps the JSON valid', () => {
    const huge = { rows: Array.from({ length: 50_000 }, (_, i) => ({ i, text: 'lorem ipsum '.repeat(5) })) };
    const text = safeStringify(huge, { maxLength: 5_000 });
    expect(text.length).toBeLessThan(5_500);
    const parsed = JSON.parse(text) as { rows: unknown[] };
    expect(parsed.rows.at(-1)).toMatch(/^\[weft: \d+ more items\]$/);
  });

  it('reads no more of a huge object, Map or Set than it can write, and counts the rest', () => {
    let reads = 0;
    const keys = Array.from({ length: 100_000 }, (_, i) => `k${i}`);
    const object = new Proxy({} as Record<string, number>, {
      ownKeys: () => keys,
      getOwnPropertyDescriptor: () => ({ value: 1, enumerable: true, configurable: true }),
      get: () => {
        reads += 1;
        return 1;
      },
    });
    let taken = 0;
    class CountingMap extends Map<string, number> {
      override *entries(): MapIterator<[string, number]> {
        for (const entry of super.entries()) {
          taken += 1;
          yield entry;
        }
      }
    }
    const map = new CountingMap(keys.map((k) => [k, 1]));
    const objectText = safeStringify(object, { maxLength: 1_000 });
    const mapText = safeStringify(map, { maxLength: 1_000 });
    expect(reads).toBeLessThan(2_000);
    expect(taken).toBeLessThan(2_000);
    for (const text of [objectText, mapText]) {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      const written = Object.keys(parsed).length - 1;
      expect(parsed['…']).toBe(`[weft: ${100_000 - written} more keys]`);
    }
    const set = JSON.parse(safeStringify(new Set(keys), { maxLength: 1_000 })) as string[];
    expect(set.at(-1)).toBe(`[weft: ${100_000 - (set.length - 1)} more items]`);
  });

  it('writes a key that follows many left out as undefined, however few characters are left', () => {
    const sparse: Record<string, unknown> = {};
    for (let i = 0; i < 2_000; i++) sparse[`gone${i}`] = undefined;
    sparse.real = 'value';
    expect(JSON.parse(safeStringify(sparse, { maxLength: 200 }))).toEqual({ real: 'value' });
  });

  it('never cuts a character made of two UTF-16 units in half', () => {
    const text = JSON.parse(safeStringify(`${'x'.repeat(99)}😀${'y'.repeat(100)}`, { maxLength: 100 })) as string;
    expect(text).toBe(`${'x'.repeat(99)}…[weft: 102 more chars]`);
  });

  it('cuts a very long string with a marker', () => {
    const text = safeStringify('x'.repeat(10_000), { maxLength: 100 });
    expect(JSON.parse(text)).toMatch(/^x{100}…\[weft: 9900 more chars\]$/);
  });

  it('stops at the depth limit with a marker', () => {
    const deep: Record<string, unknown> = {};
    let cursor = deep;
    for (let i = 0; i < 50; i++) {
      cursor.next = {};
      cursor = cursor.next as Record<string, unknown>;
    }
    expect(safeStringify(deep, { maxDepth: 2 })).toBe('{"next":{"next":"[weft: max depth]"}}');
  });

  it('redacts values under credential keys, and only those', () => {
    const client = { baseURL: 'https://api.example.com', apiKey: 'sk-live-123', _options: { headers: { Authorization: 'Bearer sk-live-123' } } };
    const text = safeStringify({ client, usage: { total_tokens: 7, max_tokens: 9 }, password: 'hunter2', access_token: 't' });
    expect(text).not.toContain('sk-live-123');
    expect(text).not.toContain('hunter2');
    expect(JSON.parse(text)).toEqual({
      client: { baseURL: 'https://api.example.com', apiKey: '[weft: redacted]', _options: { headers: { Authorization: '[weft: redacted]' } } },
      usage: { total_tokens: 7, max_tokens: 9 },
      password: '[weft: redacted]',
      access_token: '[weft: redacted]',
    });
  });

  it('never throws: throwing getters, toJSON and revoked proxies become markers', () => {
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const hostile = {
      get broken() {
        throw new Error('getter');
      },
      toJSONThrows: { toJSON: () => { throw new Error('toJSON'); } },
      proxy: revoked.proxy,
      fine: 1,
    };
    expect(JSON.parse(safeStringify(hostile))).toEqual({
      broken: '[weft: unreadable]',
      toJSONThrows: '[weft: unreadable]',
      proxy: '[weft: unreadable]',
      fine: 1,
    });
  });
});

describe('serialization of op inputs and outputs', () => {
  let h: TracingHarness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('records circular and exotic arguments as valid JSON on the exported span', async () => {
    const node: Record<string, unknown> = { id: 1n };
    node.parent = node;
    const inspect = op(function inspect(value: unknown, when: Date) {
      return new Map<string, unknown>([['seen', new Set([1, 2])], ['at', when], ['same', value === node]]);
    });
    const spans = await h.capture(() => inspect(node, new Date(0)));
    const span = named(spans, 'inspect');
    expect(inputsOf(span)).toEqual({ value: { id: '1', parent: '[Circular]' }, when: '1970-01-01T00:00:00.000Z' });
    expect(outputOf(span)).toEqual({ seen: [1, 2], at: '1970-01-01T00:00:00.000Z', same: true });
  });

  it('keeps custom attributes within the attribute length limit', async () => {
    const huge = 'x'.repeat(5_000_000);
    const tag = op(function tag() {
      currentSpan().setAttribute('blob', huge).setAttributes({ list: [huge, huge] });
    });
    const span = named(await h.capture(() => tag()), 'tag');
    const blob = span.attributes['wandb.attributes.blob'] as string;
    expect(blob.length).toBeLessThan(300_000);
    expect(blob).toMatch(/…\[weft: \d+ more chars\]$/);
    expect((span.attributes['wandb.attributes.list'] as string[]).join('').length).toBeLessThan(300_000);
  });
});
