import { isCredentialName, longestSecretLength, scrubSecrets } from '../secrets.js';
import { describeNodeIo } from './node-io.js';
import { isPlainObject } from '../is-plain-object.js';
import { MARK } from '../marks.js';

/** Options for {@link safeStringify}. */
export interface SerializeOptions {
  /**
   * Approximate upper bound on the length of the JSON text, in UTF-16 code units. Past it, strings are cut and
   * collections stop early, each with a marker, and the text stays valid JSON (it may run over by the markers
   * and closing brackets, a few hundred characters at most). Default {@link DEFAULT_MAX_JSON_LENGTH}.
   */
  maxLength?: number | undefined;
  /** Nesting depth past which values are replaced by a marker. Default {@link DEFAULT_MAX_DEPTH}. */
  maxDepth?: number | undefined;
}

/** Default bound on one serialized value (inputs or output of one call): 100,000 characters. */
export const DEFAULT_MAX_JSON_LENGTH = 100_000;
/** Default nesting depth kept by {@link safeStringify}. */
export const DEFAULT_MAX_DEPTH = 16;

/**
 * JSON text as an attribute value: a JSON string literal (from a Date, a BigInt, a symbol, a class instance
 * without fields) becomes the string itself, which the trace service would otherwise show with its quotes.
 */
export function jsonOrText(json: string): string {
  if (json.charCodeAt(0) !== 0x22 /* " */) return json;
  try {
    const text: unknown = JSON.parse(json);
    return typeof text === 'string' ? text : json;
  } catch {
    return json;
  }
}

/**
 * `text` without known secrets, cut to `room` characters with a mark saying how many more there were, the way
 * {@link safeStringify} cuts.
 */
export function scrubAndCut(text: string, room: number): string {
  // Scrubbed before cutting: a cut could leave part of a key behind, where scrubbing no longer finds it. Only the
  // part a cut keeps is searched, so a huge input costs no more than a short one: a secret that starts before
  // the cut ends within the longest secret's length after it.
  const searched = room + longestSecretLength();
  if (text.length > searched) {
    const head = headOf(scrubSecrets(text.slice(0, searched)), room);
    return head + MARK.cutString(text.length - head.length);
  }
  const clean = scrubSecrets(text);
  if (clean.length <= room) return clean;
  const head = headOf(clean, room);
  return head + MARK.cutString(clean.length - head.length);
}

/** The first `length` UTF-16 units of `text`, one fewer rather than half a character made of two (an emoji). */
function headOf(text: string, length: number): string {
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

/** Key under which an object records how many of its keys were left out. */
const TRUNCATED_KEYS_MARKER = '…';

// Smallest slice of a string kept when the budget runs out, so a cut string still says something.
const MIN_STRING_KEEP = 32;
// What a string's JSON may take beyond its room: its quotes and its cut's marker (`…[weft: N more chars]`).
const STRING_MARK_ROOM = 40;

/**
 * Turns any value into JSON text without ever throwing. Handles what `JSON.stringify` cannot: circular
 * references (`"[Circular]"`), BigInt (decimal string), Map (object, or `[key, value]` pairs when keys are not
 * primitives), Set (array), Date (ISO string), Buffer, ArrayBuffer and typed arrays (a short description),
 * Error (`{ name, message, ...own fields }`), class instances (own enumerable fields, or `"[ClassName]"` when
 * they have none), functions (`"[Function name]"`), symbols (`"Symbol(desc)"`), `NaN`/`Infinity` (strings), and
 * `undefined` (left out of objects, `null` in arrays and at the top). Values with `toJSON` are asked for it.
 * Values under credential keys (names ending in `apiKey`, `token`, `secret`, `authorization`, `password`, …) are
 * replaced by `"[weft: redacted]"`, and the API keys weft knows are replaced by `[REDACTED]` wherever they occur.
 * Very large values are truncated with markers such as `"[weft: 120 more items]"`; the text stays valid JSON.
 *
 * @example
 * const a: Record<string, unknown> = { n: 1n }; a.self = a;
 * safeStringify(a) // '{"n":"1","self":"[Circular]"}'
 */
export function safeStringify(value: unknown, options: SerializeOptions = {}): string {
  try {
    const writer = new JsonWriter(options.maxLength ?? DEFAULT_MAX_JSON_LENGTH, options.maxDepth ?? DEFAULT_MAX_DEPTH);
    writer.write(value, 0);
    return writer.text();
  } catch {
    // Only reachable through something truly hostile (e.g. a revoked Proxy at the top); never throw into the app.
    return JSON.stringify(MARK.unreadable);
  }
}

class JsonWriter {
  private readonly parts: string[] = [];
  private length = 0;
  private readonly ancestors = new Set<object>();

  constructor(
    private readonly maxLength: number,
    private readonly maxDepth: number,
  ) {}

  text(): string {
    return this.parts.join('');
  }

  private emit(s: string): void {
    this.parts.push(s);
    this.length += s.length;
  }

  private get exhausted(): boolean {
    return this.length >= this.maxLength;
  }

  private emitString(text: string): void {
    this.emit(this.stringJson(text));
  }

  /** `text` as a JSON string literal, cut to what is left of the room. */
  private stringJson(text: string): string {
    // A key weft knows (its own, a traced client's) can sit in any string: a header, a URL, a message.
    const room = Math.max(MIN_STRING_KEEP, this.maxLength - this.length);
    let json = JSON.stringify(scrubAndCut(text, room));
    // The room is for JSON, and escapes make JSON longer than its text: a quote or a backslash takes two characters,
    // a control character or a lone surrogate six. Text of them cut to the room alone would run over it up to
    // sixfold; it is cut shorter in proportion (a few rounds where the escapes cluster), down to the least kept.
    for (let keep = Math.min(room, text.length), round = 0; json.length > room + STRING_MARK_ROOM && keep > MIN_STRING_KEEP && round < 8; round++) {
      keep = Math.max(MIN_STRING_KEEP, Math.min(keep - 1, Math.floor((keep * room) / json.length)));
      json = JSON.stringify(scrubAndCut(text, keep));
    }
    return json;
  }

  /** Writes one value; `undefined` at the top becomes `null` (arrays do the same; objects skip it earlier). */
  write(value: unknown, depth: number): void {
    switch (typeof value) {
      case 'string':
        this.emitString(value);
        return;
      case 'number':
        this.emit(Number.isFinite(value) ? String(value) : JSON.stringify(String(value)));
        return;
      case 'boolean':
        this.emit(value ? 'true' : 'false');
        return;
      case 'bigint':
        this.emit(JSON.stringify(value.toString()));
        return;
      case 'undefined':
        this.emit('null');
        return;
      case 'symbol':
        this.emitString(value.toString());
        return;
      case 'function':
        this.emitString(`[Function ${functionName(value)}]`);
        return;
    }
    if (value === null) {
      this.emit('null');
      return;
    }
    this.writeObject(value as object, depth);
  }

  private writeObject(value: object, depth: number): void {
    if (this.ancestors.has(value)) {
      this.emit(JSON.stringify(MARK.circular));
      return;
    }
    // Everything that can throw (Proxy traps, toJSON, iterators) runs before anything is emitted, so a failure
    // costs one marker and never leaves half-written JSON behind.
    let shape: Shape;
    try {
      // No more entries than characters left: each costs at least one, and a huge object must not cost its size.
      shape = shapeOf(value, Math.max(0, this.maxLength - this.length) + 1);
    } catch {
      shape = { leaf: MARK.unreadable };
    }
    if ('leaf' in shape) {
      this.emitString(shape.leaf);
      return;
    }
    if (depth >= this.maxDepth) {
      this.emit(JSON.stringify(MARK.depth));
      return;
    }
    if ('replaced' in shape) {
      this.write(shape.replaced, depth + 1);
      return;
    }
    this.ancestors.add(value);
    try {
      if ('items' in shape) this.writeArray(shape.items, depth, shape.total);
      else if ('keys' in shape) {
        const { keys, of } = shape;
        this.writeEntries(keys.length, (i) => keys[i]!, (i) => readProperty(of, keys[i]!), depth);
      } else {
        const { entries } = shape;
        this.writeEntries(entries.length, (i) => entries[i]![0], (i) => readSafely(entries[i]![1]), depth, shape.total);
      }
    } finally {
      this.ancestors.delete(value);
    }
  }

  /** `items`, the first of `total` (the rest were not taken: see shapeOf). */
  private writeArray(items: readonly unknown[], depth: number, total?: number): void {
    let n: number;
    try {
      n = items.length;
    } catch {
      // An array's Proxy whose trap throws (reading `length`): that array is unreadable, not the whole value.
      this.emit(JSON.stringify(MARK.unreadable));
      return;
    }
    total ??= n;
    this.emit('[');
    let i = 0;
    for (; i < n; i++) {
      if (i > 0) this.emit(',');
      if (this.exhausted) break;
      this.write(readSafely(() => items[i]), depth + 1);
    }
    if (i < total) this.emit(`${i > 0 && i === n ? ',' : ''}${JSON.stringify(MARK.moreItems(total - i))}`);
    this.emit(']');
  }

  /** `count` entries, read one by one as they are written, the first of `total` (the rest were not taken: see shapeOf). */
  private writeEntries(
    count: number,
    keyAt: (i: number) => string,
    valueAt: (i: number) => unknown,
    depth: number,
    total = count,
  ): void {
    this.emit('{');
    let first = true;
    const n = count;
    let i = 0;
    for (; i < n; i++) {
      const item = valueAt(i);
      if (item === undefined) continue;
      const key = keyAt(i);
      if (this.exhausted) break;
      if (!first) this.emit(',');
      first = false;
      // A key is cut as a string value is: a Map's key may be any text (a whole document), and counts as much.
      this.emit(`${this.stringJson(key)}:`);
      if (isCredentialName(key)) this.emitString(MARK.redacted);
      else this.write(item, depth + 1);
    }
    if (i < total) this.emit(`${first ? '' : ','}${JSON.stringify(TRUNCATED_KEYS_MARKER)}:${JSON.stringify(MARK.moreKeys(total - i))}`);
    this.emit('}');
  }
}

type Entries = ReadonlyArray<readonly [string, () => unknown]>;
/** How an object is written: as one string, as another value, as an array, or as key/value entries. */
type Shape =
  | { leaf: string }
  | { replaced: unknown }
  | { items: readonly unknown[]; total?: number }
  | { entries: Entries; total?: number }
  | { keys: readonly string[]; of: object };

/** How `value` is written, with at most `limit` of its entries or items taken (and how many it has in all). */
function shapeOf(value: object, limit: number): Shape {
  const leaf = describeLeaf(value);
  if (leaf !== undefined) return { leaf };
  if (Array.isArray(value)) return { items: value };
  if (value instanceof Set) return { items: firstOf(value.values(), limit), total: value.size };
  if (value instanceof Map) return mapShape(value, limit);
  if (value instanceof Error) return { entries: errorEntries(value) };
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    const replaced: unknown = toJSON.call(value);
    // toJSON may hand back a fresh object each time; the depth limit still bounds the recursion.
    if (replaced !== value) return { replaced };
  }
  // A getter of a request that throws is caught by the caller, as anything here: the object is then unreadable.
  const io = describeNodeIo(value, MARK.redacted);
  if (io && 'named' in io) return { leaf: `[${constructorName(value) ?? 'EventEmitter'}]` };
  if (io && 'replaced' in io) return io;
  if (isBoxedPrimitive(value)) return { replaced: value.valueOf() };
  const keys = io ? Object.keys(value).filter((key) => !io.without.includes(key)) : Object.keys(value);
  if (keys.length === 0 && !isPlainObject(value)) return { leaf: `[${constructorName(value) ?? 'Object'}]` };
  // Its keys, read as they are written: a huge object costs its keys' list, not a closure each.
  return { keys, of: value };
}

// A getter that throws (or a Proxy trap) must not stop the rest of the object from being recorded.
function readProperty(object: object, key: string): unknown {
  try {
    return (object as Record<string, unknown>)[key];
  } catch {
    return MARK.unreadable;
  }
}

function mapShape(map: Map<unknown, unknown>, limit: number): Shape {
  const entries = firstOf(map.entries(), limit);
  const primitiveKeys = entries.every(([k]) => k === null || (typeof k !== 'object' && typeof k !== 'function'));
  if (!primitiveKeys) return { items: entries, total: map.size };
  return { entries: entries.map(([k, v]) => [String(k), () => v] as const), total: map.size };
}

/** The first `limit` values of `iterator`. */
function firstOf<T>(iterator: Iterator<T>, limit: number): T[] {
  const out: T[] = [];
  for (let next = iterator.next(); !next.done && out.length < limit; next = iterator.next()) out.push(next.value);
  return out;
}

// A getter that throws (or a Proxy trap) must not stop the rest of the value from being recorded.
function readSafely(read: () => unknown): unknown {
  try {
    return read();
  } catch {
    return MARK.unreadable;
  }
}

/** Values summarised as one string rather than walked. */
function describeLeaf(value: object): string | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  if (value instanceof RegExp) return value.toString();
  if (ArrayBuffer.isView(value)) {
    const name = constructorName(value) ?? 'TypedArray';
    if (value instanceof DataView) return `[DataView: ${value.byteLength} bytes]`;
    const items = (value as unknown as { length: number }).length;
    return name === 'Buffer' || name === 'Uint8Array'
      ? `[${name}: ${value.byteLength} bytes]`
      : `[${name}: ${items} items]`;
  }
  if (value instanceof ArrayBuffer) return `[ArrayBuffer: ${value.byteLength} bytes]`;
  if (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer) {
    return `[SharedArrayBuffer: ${value.byteLength} bytes]`;
  }
  if (value instanceof Promise) return '[Promise]';
  if (value instanceof WeakMap) return '[WeakMap]';
  if (value instanceof WeakSet) return '[WeakSet]';
  return undefined;
}

function errorEntries(error: Error): Entries {
  const entries: Array<readonly [string, () => unknown]> = [
    ['name', () => error.name],
    ['message', () => error.message],
  ];
  for (const key of Object.keys(error)) {
    if (key !== 'name' && key !== 'message') entries.push([key, () => (error as unknown as Record<string, unknown>)[key]]);
  }
  if ('cause' in error && !Object.keys(error).includes('cause')) entries.push(['cause', () => error.cause]);
  return entries;
}

function functionName(fn: Function): string {
  try {
    return typeof fn.name === 'string' && fn.name !== '' ? fn.name : 'anonymous';
  } catch {
    return 'anonymous';
  }
}

function isBoxedPrimitive(value: object): value is { valueOf(): unknown } {
  return value instanceof String || value instanceof Number || value instanceof Boolean;
}

function constructorName(value: object): string | undefined {
  try {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && name !== '' ? name : undefined;
  } catch {
    return undefined;
  }
}
