import type { AttributeValue, Attributes } from '@opentelemetry/api';
import { clip, jsonOrText, safeStringify } from './serialize.js';
import { contentOptions, withinLimit } from './settings.js';

/**
 * The span attributes weft's own spans carry, named as the trace service reads them (reference
 * trace-service.md §3.2). `inputs` is the only input key and `output` the only output key weft sets, so the
 * service de-nests them: the `inputs` object becomes the call's inputs, and `output` becomes its output.
 */
export const ATTR = {
  /** JSON text of an object of named arguments. */
  inputs: 'inputs',
  /** JSON text of objects and arrays; strings, numbers and booleans as themselves. */
  output: 'output',
  /** The call's display name; the span name stays the op name. */
  displayName: 'wandb.display_name',
  /** Prefix of custom attributes, merged into the call's `attributes`. */
  customPrefix: 'wandb.attributes.',
  /** The call's kind (`attributes.kind`), e.g. `agent`, `tool`, `llm`. */
  kind: 'weave.span.kind',
  threadId: 'wandb.thread_id',
  /** True on the outermost span of a turn; the service then uses the span id as the turn id. */
  isTurn: 'wandb.is_turn',
  /** OpenTelemetry semantic convention names, also read by other backends. */
  userId: 'user.id',
  sessionId: 'session.id',
  /** Tags of a {@link withContext} scope, as a string array under the custom attributes. */
  tags: 'wandb.attributes.tags',
} as const;

/**
 * An attribute value for any JS value: strings, finite numbers and booleans as themselves, arrays of strings
 * as string arrays, a value whose JSON is a string (a Date, a BigInt) as that string, anything else as JSON text,
 * all within `maxLength` characters (default: the tracing settings' attribute limit). `undefined` and `null` give
 * `undefined` (no attribute).
 */
export function toAttributeValue(value: unknown, maxLength = contentOptions().maxAttributeLength): AttributeValue | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return withinLimit(maxLength, (budget) => clip(value, budget));
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    const share = Math.max(1, Math.floor(maxLength / Math.max(1, value.length)));
    return (value as string[]).map((v) => withinLimit(share, (budget) => clip(v, budget)) ?? '');
  }
  const json = withinLimit(maxLength, (budget) => safeStringify(value, { maxLength: budget }));
  return json === undefined ? undefined : jsonOrText(json);
}

/** `{ key: value }` → `{ 'wandb.attributes.key': value }`, dropping values that have no attribute form. */
export function customAttributes(record: Readonly<Record<string, unknown>> | undefined): Attributes {
  const out: Attributes = {};
  if (!record) return out;
  for (const [key, value] of Object.entries(record)) {
    const converted = toAttributeValue(value);
    if (converted !== undefined) out[ATTR.customPrefix + key] = converted;
  }
  return out;
}

/**
 * Makes the custom attributes of one span safe to send: the trace service expands dotted keys into a tree and
 * rejects the whole span when a key is both a value and the prefix of another key (reference trace-service.md
 * §3.1), such as `wandb.attributes.model` from `withContext()` metadata beside `wandb.attributes.model.version`
 * from an op. Each such value moves to `<key>._value` (dropped if that key is taken), so the call shows
 * `model: { _value, version }`. Changes `attributes` in place and returns the first key moved, if any.
 * Only `wandb.attributes.` keys are looked at; a span with fewer than two of them costs one pass over its keys.
 */
export function separateCustomPaths(attributes: Attributes): string | undefined {
  let count = 0;
  for (const key in attributes) {
    if (key.startsWith(ATTR.customPrefix)) count++;
  }
  if (count < 2) return undefined;
  const custom = Object.keys(attributes).filter((key) => key.startsWith(ATTR.customPrefix));
  const prefixes = new Set<string>();
  for (const key of custom) {
    for (let dot = key.indexOf('.', ATTR.customPrefix.length); dot !== -1; dot = key.indexOf('.', dot + 1)) {
      prefixes.add(key.slice(0, dot));
    }
  }
  let first: string | undefined;
  for (const key of custom) {
    if (!prefixes.has(key)) continue;
    const value = attributes[key];
    delete attributes[key];
    const moved = `${key}._value`;
    if (!(moved in attributes) && !prefixes.has(moved)) attributes[moved] = value;
    first ??= key;
  }
  return first;
}
