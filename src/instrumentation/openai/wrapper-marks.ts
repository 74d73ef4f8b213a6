import type { AdoptedMethod, Method, PatchedMethodName } from './patch-completions.js';

// How weft's wrappers of openai's methods are marked, found and taken off, as shimmer (which OpenTelemetry's
// instrumentations use) marks its own, so that weft and other instrumentations can wrap the same method.

// Global, so that two copies of weft (ESM and CommonJS) in one process never patch the same method twice.
const WEFT_WRAPPER = Symbol.for('weft.openai.wrapper');

/** A prototype weft patches (chat `Completions`, or openai 4's beta one), the methods it patches there, and how. */
export interface PatchRecord {
  prototype: object;
  names: readonly PatchedMethodName[];
  methods: AdoptedMethod[];
  active: boolean;
}

/** Undoes a patch: each method weft wrapped gets its original back, where weft's wrapper is still the one in place. */
export function unpatch(record: PatchRecord): void {
  if (!record.active) return;
  const methods = record.prototype as unknown as Record<string, unknown>;
  for (const { name, original, wrapper } of record.methods) {
    // If someone wrapped weft's wrapper, removing it would remove theirs too; it passes calls through while disabled.
    if (methods[name] === wrapper) methods[name] = original;
  }
  record.active = false;
}

/** Marks a wrapper the way shimmer does (so other tools see it as wrapped, and can unwrap theirs) and as weft's own. */
export function markWrapper(prototype: object, method: AdoptedMethod): void {
  const define = (key: PropertyKey, descriptor: PropertyDescriptor) =>
    Object.defineProperty(method.wrapper, key, { ...descriptor, enumerable: false, configurable: true });
  define(WEFT_WRAPPER, { value: true });
  define('__wrapped', { value: true });
  define('__original', { get: () => method.original });
  define('__unwrap', { value: () => unwrapUnderWeft(prototype, method) });
}

/**
 * shimmer's `unwrap(prototype, name)` (every OpenTelemetry instrumentation's `_unwrap`) calls `__unwrap` on the method
 * it finds there. Finding weft's wrapper, it comes from an instrumentation that patched openai before weft and is
 * being disabled, its own wrapper under weft's: weft's steps aside for that one to unwrap itself, and wraps what is
 * left. The other instrumentation is gone, as it would be without weft, and weft stays; without this its wrapper
 * would stay (and shimmer say so on stderr), and its enable() wrap the method a second time.
 */
function unwrapUnderWeft(prototype: object, method: AdoptedMethod): void {
  const methods = prototype as Record<string, unknown>;
  const under = method.original as Method & { __unwrap?: unknown };
  if (methods[method.name] !== method.wrapper || typeof under.__unwrap !== 'function') return;
  methods[method.name] = under;
  try {
    (under.__unwrap as () => void)();
  } finally {
    const left = methods[method.name];
    if (typeof left === 'function') method.original = left as Method;
    methods[method.name] = method.wrapper;
  }
}

/** The wrappers a method goes through, itself first (shimmer's `__original` chain). */
function* wrapperChain(method: unknown): Generator<{ [WEFT_WRAPPER]?: boolean; __original?: unknown }> {
  let current = method as { [WEFT_WRAPPER]?: boolean; __original?: unknown } | undefined;
  for (let depth = 0; current && depth < 16; depth++) {
    yield current;
    current = current.__original as typeof current;
  }
}

/** Whether weft's wrapper is anywhere in a method's chain of wrappers (this copy of weft's or another's). */
export function isWeftWrapped(method: unknown): boolean {
  for (const wrapper of wrapperChain(method)) if (wrapper[WEFT_WRAPPER]) return true;
  return false;
}

/** Whether `wrapper` is in a method's chain of wrappers: weft's own, still there under another's. */
export function wrapperIn(method: unknown, wrapper: Method | undefined): boolean {
  if (!wrapper) return false;
  for (const current of wrapperChain(method)) if (current === wrapper) return true;
  return false;
}
