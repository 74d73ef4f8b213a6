import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeStringify } from 'weft';
import { edgeNumber, text } from './arbitraries.js';
import { runs } from './runs.js';

/**
 * safeStringify() (a public export) on random values, hostile ones included: cycles, Maps with object keys, Sets,
 * typed arrays, getters and toJSON that throw, Proxies whose traps throw or that were revoked, boxed primitives,
 * class instances, symbols, BigInts. It must never throw, always give valid JSON, and stay within `maxLength` but
 * for its markers and closing brackets, as its documentation says ("a few hundred characters at most").
 */

/** The overrun the documentation allows: markers and closing brackets, "a few hundred characters at most". */
const SLACK = 400;

type Node = { kind: string; [key: string]: unknown };

/** A description of a value, built into the value by {@link build} (so that a counterexample prints readably). */
const { node } = fc.letrec<{ node: Node; leaf: Node }>((tie) => ({
  leaf: fc.oneof(
    fc.record({ kind: fc.constant('string'), value: text(40) }),
    fc.record({ kind: fc.constant('long string'), unit: text(3), times: fc.integer({ min: 50, max: 3000 }) }),
    fc.record({ kind: fc.constant('number'), value: edgeNumber }),
    fc.record({ kind: fc.constant('bigint'), value: fc.bigInt() }),
    fc.record({ kind: fc.constantFrom('true', 'false', 'null', 'undefined', 'symbol', 'function', 'date', 'invalid date', 'regexp', 'buffer', 'float32', 'dataview', 'arraybuffer', 'promise', 'weakmap', 'boxed', 'revoked proxy', 'throwing getter', 'throwing toJSON', 'self toJSON', 'null prototype', 'empty class', 'error') }),
  ),
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('leaf'),
    fc.record({ kind: fc.constant('array'), items: fc.array(tie('node'), { maxLength: 5 }), sparse: fc.boolean() }),
    fc.record({ kind: fc.constant('object'), entries: fc.array(fc.tuple(text(8), tie('node')), { maxLength: 5 }) }),
    fc.record({ kind: fc.constant('map'), entries: fc.array(fc.tuple(tie('node'), tie('node')), { maxLength: 4 }) }),
    fc.record({ kind: fc.constant('set'), items: fc.array(tie('node'), { maxLength: 4 }) }),
    fc.record({ kind: fc.constant('class'), entries: fc.array(fc.tuple(text(8), tie('node')), { maxLength: 3 }) }),
    fc.record({ kind: fc.constant('proxy'), target: tie('node'), throwing: fc.constantFrom('get', 'ownKeys', 'getPrototypeOf', 'has', 'none') }),
    fc.record({ kind: fc.constant('toJSON'), value: tie('node') }),
    fc.record({ kind: fc.constant('error with cause'), message: text(), cause: tie('node') }),
    fc.record({ kind: fc.constant('cycle'), entries: fc.array(fc.tuple(text(8), tie('node')), { maxLength: 3 }) }),
    fc.record({ kind: fc.constant('wide'), count: fc.integer({ min: 100, max: 5000 }), value: tie('leaf') }),
  ),
}));

class Empty {}
class Fields {}

function build(n: Node): unknown {
  switch (n.kind) {
    case 'string':
      return n.value;
    case 'long string':
      return (n.unit as string).repeat(n.times as number);
    case 'number':
    case 'bigint':
      return n.value;
    case 'true':
      return true;
    case 'false':
      return false;
    case 'null':
      return null;
    case 'undefined':
      return undefined;
    case 'symbol':
      return Symbol('sym"bol');
    case 'function':
      return function named() {};
    case 'date':
      return new Date(0);
    case 'invalid date':
      return new Date(Number.NaN);
    case 'regexp':
      return /a"b\\/g;
    case 'buffer':
      return Buffer.from('abc');
    case 'float32':
      return new Float32Array(3);
    case 'dataview':
      return new DataView(new ArrayBuffer(4));
    case 'arraybuffer':
      return new ArrayBuffer(8);
    case 'promise':
      return Promise.resolve(1);
    case 'weakmap':
      return new WeakMap();
    case 'boxed':
      return new String('boxed');
    case 'revoked proxy': {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    }
    case 'throwing getter':
      return Object.defineProperty({ before: 1 }, 'bad', {
        enumerable: true,
        get() {
          throw new Error('getter');
        },
      });
    case 'throwing toJSON':
      return {
        toJSON() {
          throw new Error('toJSON');
        },
      };
    case 'self toJSON': {
      const value = {
        toJSON() {
          return value;
        },
      };
      return value;
    }
    case 'null prototype':
      return Object.assign(Object.create(null), { a: 1 });
    case 'empty class':
      return new Empty();
    case 'error':
      return new TypeError('bad "input"');
    case 'array': {
      const items = (n.items as Node[]).map(build);
      if (n.sparse) items.length += 3;
      return items;
    }
    case 'object':
      return Object.fromEntries((n.entries as [string, Node][]).map(([k, v]) => [k, build(v)]));
    case 'map':
      return new Map((n.entries as [Node, Node][]).map(([k, v]) => [build(k), build(v)]));
    case 'set':
      return new Set((n.items as Node[]).map(build));
    case 'class':
      return Object.assign(new Fields(), Object.fromEntries((n.entries as [string, Node][]).map(([k, v]) => [k, build(v)])));
    case 'proxy': {
      const target = build(n.target as Node);
      const base = target !== null && typeof target === 'object' ? target : { value: target };
      const trap = n.throwing as string;
      const handler: ProxyHandler<object> = {};
      if (trap !== 'none') {
        (handler as Record<string, unknown>)[trap] = () => {
          throw new Error(`trap ${trap}`);
        };
      }
      return new Proxy(base, handler);
    }
    case 'toJSON': {
      const inner = build(n.value as Node);
      return { toJSON: () => inner };
    }
    case 'error with cause':
      return new Error(n.message as string, { cause: build(n.cause as Node) });
    case 'cycle': {
      const holder: Record<string, unknown> = Object.fromEntries((n.entries as [string, Node][]).map(([k, v]) => [k, build(v)]));
      holder.self = holder;
      holder.list = [holder, new Map([['back', holder]]), new Set([holder])];
      return holder;
    }
    case 'wide':
      return Array.from({ length: n.count as number }, () => build(n.value as Node));
    default:
      throw new Error(`unknown node ${n.kind}`);
  }
}

describe('safeStringify() on random values', () => {
  it('never throws, always writes valid JSON, within maxLength and its documented slack', () => {
    fc.assert(
      fc.property(node, fc.integer({ min: 1, max: 5000 }), fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }), (n, maxLength, maxDepth) => {
        const value = build(n);
        const json = safeStringify(value, { maxLength, maxDepth });
        expect(typeof json).toBe('string');
        expect(() => JSON.parse(json)).not.toThrow();
        if (json.length > maxLength + SLACK) {
          throw new Error(`${json.length} characters for maxLength ${maxLength}: ${json.slice(0, 200)}…`);
        }
      }),
      {
        ...runs(2000),
        // What the property found: text JSON escapes, cut to the room as if each character took one (a quote takes
        // two, a control character or a lone surrogate six), and a Map's key, which was never cut at all.
        examples: [
          [{ kind: 'long string', unit: '"', times: 1017 }, 1024, undefined],
          [{ kind: 'long string', unit: '\ud800\u0000', times: 189 }, 1859, undefined],
          [{ kind: 'map', entries: [[{ kind: 'long string', unit: 'à', times: 475 }, { kind: 'string', value: 'x' }]] }, 6, undefined],
        ],
      },
    );
  });

  it('records the rest of a value around a part it cannot read', () => {
    fc.assert(
      fc.property(node, (n) => {
        const json = safeStringify({ before: 'kept', value: build(n), after: 'kept' }, { maxLength: 1_000_000 });
        // Unless the value is too long to be written whole: the keys after it are then rightly left out, and counted.
        fc.pre(json.length < 900_000);
        const parsed = JSON.parse(json) as Record<string, unknown>;
        if (parsed.before !== 'kept' || parsed.after !== 'kept') throw new Error(`the rest was lost (${json.length} characters): ${json.slice(0, 100)} … ${json.slice(-100)}`);
      }),
      {
        ...runs(1000),
        // What the property found: an array's Proxy whose `get` trap throws made the whole value unreadable.
        examples: [[{ kind: 'proxy', target: { kind: 'array', items: [], sparse: false }, throwing: 'get' }]],
      },
    );
  });

  it('writes JSON that a JSON.stringify-able value parses back to, when nothing was cut', () => {
    const json = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text(20),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(text(6).filter((k) => !/(?:key|token|secret|password|authorization|cookie|credential)$/i.test(k.replace(/[^a-z]/gi, ''))), tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => {
        const written = safeStringify(value, { maxLength: 1_000_000 });
        // JSON itself writes -0 as 0 and a lone surrogate as its escape, which parse back alike.
        expect(JSON.parse(written)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { ...runs(1000), endOnFailure: true },
    );
  });
});
