import type { AttributeValue } from '../../otlp/index.js';
import { nestsTooDeep } from '../http.js';

/** A JSON-like tree built from a span's attributes. */
export type Tree = { [key: string]: unknown };

/** Thrown when two attribute keys disagree on a path (`a` is a value and `a.b` is set too). */
class AttributeConflict extends Error {
  override readonly name = 'AttributeConflict';
}

/**
 * A tree node without a prototype: attribute keys are data, and one named `constructor`, `toString` or `__proto__`
 * must find nothing there but what the span set.
 */
function emptyTree(): Tree {
  return Object.create(null) as Tree;
}

/** OTLP values as JSON: big ints as strings, bytes as base64, JSON-looking strings parsed. */
function toJsonValue(value: AttributeValue): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (typeof value === 'string') {
    // The real service json-loads a string that starts with `{` or `[` (not one after leading white space), so
    // JSON-encoded `input.value` arrives as data.
    // One nested deeper than a request body may be stays text: as data it ran weft dev's recursive walks out of
    // stack, and every later query of the project answered 500 (see MAX_JSON_DEPTH).
    if ((value.startsWith('{') || value.startsWith('[')) && !nestsTooDeep(value)) {
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    }
    return value;
  }
  if (value !== null && typeof value === 'object') {
    const out = emptyTree();
    for (const [k, v] of Object.entries(value)) out[k] = toJsonValue(v);
    return out;
  }
  return value;
}

/**
 * Expands dotted keys into nested objects (`gen_ai.prompt.0.role` → `{gen_ai:{prompt:{0:{role}}}}`), as the
 * real service does before it maps attributes to call fields.
 *
 * @throws {AttributeConflict} when one key is a value and also the prefix of another key.
 */
export function expandAttributes(flat: Record<string, AttributeValue>): Tree {
  const root = emptyTree();
  // Objects this expansion made for path segments; any other object is a value and cannot be extended.
  const branches = new WeakSet<object>([root]);
  for (const [flatKey, raw] of Object.entries(flat)) {
    const parts = flatKey.split('.');
    let node: Tree = root;
    for (let i = 0; i < parts.length - 1; i++) {
      const part = parts[i]!;
      const next = node[part];
      if (next === undefined) {
        const branch = emptyTree();
        branches.add(branch);
        node[part] = branch;
        node = branch;
      } else if (typeof next === 'object' && next !== null && branches.has(next)) {
        node = next as Tree;
      } else {
        throw new AttributeConflict(
          `conflicting attribute paths: "${parts.slice(0, i + 1).join('.')}" has a value and "${flatKey}" extends it`,
        );
      }
    }
    const leaf = parts[parts.length - 1]!;
    if (node[leaf] !== undefined) {
      throw new AttributeConflict(`conflicting attribute paths: "${flatKey}" is both a value and a prefix of other keys`);
    }
    node[leaf] = toJsonValue(raw);
  }
  return root;
}

/** Python's truthiness, which the real service applies to every candidate value. */
export function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

// `{"0": a, "1": b}` is how indexed keys (`gen_ai.prompt.0.*`) expand; the service reads them as a list.
function numericDictToList(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 0) return value;
  const contiguous = keys.every((k) => /^\d+$/.test(k)) && keys.map(Number).sort((a, b) => a - b).every((n, i) => n === i);
  if (!contiguous) return value;
  return keys.map((_, i) => (value as Tree)[String(i)]);
}

/** Finds a dotted key in the tree; numeric parts index into lists; numeric-keyed objects come back as lists. */
export function lookup(tree: Tree, path: string): unknown {
  let current: unknown = tree;
  for (const part of path.split('.')) {
    if (Array.isArray(current) && /^\d+$/.test(part)) current = current[Number(part)];
    else if (current !== null && typeof current === 'object') current = (current as Tree)[part];
    else return undefined;
    if (current === undefined) return undefined;
  }
  return numericDictToList(current);
}

/** The first key of `paths` whose value is truthy, with that value. */
export function firstMatch(tree: Tree, paths: readonly string[]): { key: string; value: unknown } | undefined {
  for (const path of paths) {
    const value = lookup(tree, path);
    if (isTruthy(value)) return { key: path, value };
  }
  return undefined;
}
