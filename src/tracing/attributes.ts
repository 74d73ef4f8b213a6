import type { AttributeValue, Attributes } from '@opentelemetry/api';
import { clip, safeStringify } from './serialize.js';
import { contentOptions } from './settings.js';

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
  if (typeof value === 'string') return clip(value, maxLength);
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    const share = Math.max(1, Math.floor(maxLength / Math.max(1, value.length)));
    return (value as string[]).map((v) => clip(v, share));
  }
  return jsonOrText(safeStringify(value, { maxLength }));
}

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
