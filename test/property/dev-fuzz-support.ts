import fc from 'fast-check';
import { afterAll, beforeAll } from 'vitest';
import { type DevService, startDevService } from 'weft/dev';
import { edgeNumber, text } from './arbitraries.js';

/**
 * Shared pieces of the weft dev fuzz properties: valid request bodies per route (the seeds the mutations start
 * from), a mutation of a JSON value, and a raw HTTP exchange that reads any answer (JSON, JSONL or none).
 */

export const P = 'team/proj';

/** A JSON value a parsed body may hold. */
export type J = null | boolean | number | string | J[] | { [key: string]: J };

/** What a request got: the status, the content type and the body as text. */
export interface Exchange {
  status: number;
  type: string;
  text: string;
}

/** Sends a request (body as text, as given) and reads the whole answer; a hang fails through the test timeout. */
export async function exchange(url: string, method: string, body?: string, contentType = 'application/json'): Promise<Exchange> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': contentType },
    body,
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** A stand-in for nesting too deep to be a value the test holds: {@link withDeep} writes it into the text. */
export const DEEP = '__weft_deep__';

/** JSON text with each {@link DEEP} replaced by arrays and objects nested `depth` levels deep. */
export function withDeep(json: string, depth: number): string {
  const deep = `${'[{"a":'.repeat(depth / 2)}1${'}]'.repeat(depth / 2)}`;
  return json.replaceAll(JSON.stringify(DEEP), deep);
}

/** Values that break services: edges of numbers, text of every kind, nulls, empty and deep containers. */
export const nasty: fc.Arbitrary<J> = fc.oneof(
  fc.constantFrom<J>(null, true, false, '', [], {}, -1, 0, 1e308, -1e308, 2 ** 53 + 2, -(2 ** 63), 0.5, 'null', '1', 'true', '[]', '{}'),
  edgeNumber.filter((n) => Number.isFinite(n)),
  text(40),
  fc.integer({ min: 1, max: 200 }).map((depth) => nest(depth)),
  // Deeper nesting is put in the body's text where this stands (see withDeep): fast-check's own walks of a value
  // would run out of stack on it.
  fc.constant(DEEP),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<J>,
  fc.constantFrom<J>('weave:///team/proj/call/x', 'weave:///team/proj/object/o:*', 'weave:///x', '2026-01-01T00:00:00Z', '../../etc', '%', '%zz', '\u0000'),
);

/** An array nested `depth` times. */
export function nest(depth: number): J {
  let value: J = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

/** Every path (list of keys and indexes) in a value, the root included. */
function paths(value: J, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (prefix.length > 8) return out;
  if (Array.isArray(value)) for (const [i, v] of value.entries()) paths(v, [...prefix, i], out);
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths(v, [...prefix, k], out);
  return out;
}

type Mutation = { op: 'drop' | 'set' | 'add'; at: number; key: string; value: J };

/** Applies one mutation at the `at`-th path of `value` (a copy). */
function mutate(value: J, m: Mutation): J {
  const all = paths(value);
  const path = all[m.at % all.length]!;
  if (path.length === 0) return m.op === 'set' ? m.value : value;
  const copy = structuredClone(value);
  let parent: J = copy;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string, J>)[key as string]!;
  const last = path.at(-1)!;
  const container = parent as Record<string | number, J>;
  if (m.op === 'drop') {
    if (Array.isArray(container)) container.splice(last as number, 1);
    else delete container[last];
  } else if (m.op === 'set') {
    container[last] = m.value;
  } else {
    const target = container[last];
    if (Array.isArray(target)) target.push(m.value);
    else if (target !== null && typeof target === 'object') target[m.key] = m.value;
    else container[last] = m.value;
  }
  return copy;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom('drop', 'set', 'set', 'add'),
  at: fc.nat(),
  key: fc.oneof(fc.constantFrom('project_id', 'id', 'limit', 'offset', 'filter', 'query', 'sort_by', '__proto__', 'constructor'), text(8)),
  value: nasty,
});

/** A valid body with one to three mutations. */
export function nearValid(valid: J): fc.Arbitrary<J> {
  return fc.array(mutation, { minLength: 1, maxLength: 3 }).map((ms) => ms.reduce(mutate, valid));
}

/**
 * A weft dev for the test file that calls this at its top level, started on a free port before its tests and closed
 * after them, and `post(path, body)`, which sends JSON to it and answers the text of an answer that must be a 200.
 */
export function useDevService(): { dev: () => DevService; post: (path: string, body: unknown) => Promise<string> } {
  let service: DevService | undefined;
  beforeAll(async () => {
    service = await startDevService({ port: 0, log: false });
  });
  afterAll(async () => {
    await service?.close();
  });
  const dev = () => {
    if (!service) throw new Error('weft dev is not started yet');
    return service;
  };
  const post = async (path: string, body: unknown): Promise<string> => {
    const res = await exchange(`${dev().url}${path}`, 'POST', JSON.stringify(body));
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${res.text}`);
    return res.text;
  };
  return { dev, post };
}
