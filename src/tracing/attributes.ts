import type { AttributeValue, Attributes, Span } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { jsonOrText, safeStringify, scrubAndCut } from './serialize.js';
import { contentOptions, withinLimit } from './content-options.js';
import { reportOnce } from '../diagnostics.js';
import { ATTR_WEAVE_SPAN_KIND } from '../semconv.js';

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
  kind: ATTR_WEAVE_SPAN_KIND,
  threadId: 'wandb.thread_id',
  /** True on the outermost span of a turn; the service then uses the span id as the turn id. */
  isTurn: 'wandb.is_turn',
  /** OpenTelemetry semantic convention names, also read by other backends. */
  userId: 'user.id',
  sessionId: 'session.id',
  /** The same as custom attributes: the trace service reads neither of the two above, so only these show on a call. */
  customUserId: 'wandb.attributes.user_id',
  customSessionId: 'wandb.attributes.session_id',
  /** Tags of a {@link withContext} scope, as a string array under the custom attributes. */
  tags: 'wandb.attributes.tags',
} as const;

/**
 * Whether the trace service would take `text` for JSON rather than text: it parses a string value that starts with
 * `[` or `{` where it can (reference trace-service.md §3.1). A thread id or display name it reads so becomes an
 * object where the call needs a string.
 */
function readAsJson(text: string): boolean {
  const first = text.charCodeAt(0);
  if (first !== 0x5b /* [ */ && first !== 0x7b /* { */) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * `text` as a thread id or display name is recorded, unless the trace service would read it as JSON (see
 * {@link readAsJson}): those come from outside (a conversation id), so one is left out, said once for each `what`,
 * and the app's code runs as it would.
 */
export function recordableText(text: string, what: 'thread id' | 'display name'): string | undefined {
  if (!readAsJson(text)) return text;
  reportOnce(
    `tracing-${what}-json`,
    `a ${what} that is JSON text was left out: the trace service reads a string that starts with "[" or "{" as ` +
      `JSON, and a ${what} must be a string (this is reported once).`,
  );
  return undefined;
}

/**
 * An attribute value for any JS value: strings, finite numbers and booleans as themselves, arrays of strings
 * as string arrays, a value whose JSON is a string (a Date, a BigInt) as that string, anything else as JSON text,
 * all within `maxLength` characters (default: the tracing settings' attribute limit). `undefined` and `null` give
 * `undefined` (no attribute).
 */
export function toAttributeValue(value: unknown, maxLength = contentOptions().maxAttributeLength): AttributeValue | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return withinLimit(maxLength, (budget) => scrubAndCut(value, budget));
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    const share = Math.max(1, Math.floor(maxLength / Math.max(1, value.length)));
    return (value as string[]).map((v) => withinLimit(share, (budget) => scrubAndCut(v, budget)) ?? '');
  }
  const json = withinLimit(maxLength, (budget) => safeStringify(value, { maxLength: budget }));
  return json === undefined ? undefined : jsonOrText(json);
}

/**
 * `{ key: value }` → `{ 'wandb.attributes.key': value }`, dropping values that have no attribute form, each within
 * `maxLength` characters (default: the tracing settings' attribute limit).
 */
export function customAttributes(
  record: Readonly<Record<string, unknown>> | undefined,
  maxLength = contentOptions().maxAttributeLength,
): Attributes {
  const out: Attributes = {};
  if (!record) return out;
  for (const [key, value] of Object.entries(record)) {
    const converted = toAttributeValue(value, maxLength);
    if (converted !== undefined) out[ATTR.customPrefix + key] = converted;
  }
  return out;
}

/**
 * Custom attributes `span` started with, made at `madeAt` characters (`made`, from `record`), made again within
 * the span's own `maxLength`, which is tighter: the SDK cut a longer value as it started the span, without regard
 * for JSON, and an object's JSON cut so no longer parses. One the SDK cut is replaced, or left out when it cannot fit
 * even cut; one that something else has set since (the processor's `withContext()` metadata) is left as it is.
 */
export function refitCustomAttributes(
  span: Span,
  record: Readonly<Record<string, unknown>>,
  made: Attributes,
  maxLength: number,
): void {
  const fitted = customAttributes(record, maxLength);
  const current = (span as Partial<ReadableSpan>).attributes;
  if (!current) return;
  for (const [key, value] of Object.entries(made)) {
    if (typeof value !== 'string' || value.length <= maxLength || current[key] !== value.slice(0, maxLength)) continue;
    const refitted = fitted[key];
    if (refitted !== undefined) span.setAttribute(key, refitted);
    // As the SDK's own processors do (see moveShadowingCustom): a span's attributes are its own until it ends.
    else delete current[key];
  }
}

/** The custom attribute keys of a span, or undefined when it has none (most spans): one pass over its keys. */
export function customKeys(attributes: Attributes): string[] | undefined {
  let keys: string[] | undefined;
  for (const key in attributes) {
    if (!key.startsWith(ATTR.customPrefix)) continue;
    keys ??= [];
    keys.push(key);
  }
  return keys;
}

/**
 * The call fields that key a call's token usage and cost, which the trace service derives from a span's own keys
 * (reference trace-service.md §3.2: the usage key is `attributes.model`, else `attributes.model_parameters.model`),
 * and the keys (or key prefixes) it derives each from. Custom attributes are merged into the same `attributes`.
 */
const DERIVED_FROM: ReadonlyMap<string, readonly string[]> = new Map([
  ['model', ['gen_ai.response.model', 'gen_ai.request.model', 'llm.model_name', 'ai.model.id']],
  ['model_parameters', ['gen_ai.request', 'llm.invocation_parameters']],
]);

function hasAnyKey(attributes: Attributes, sources: readonly string[]): boolean {
  for (const key in attributes) {
    for (const source of sources) {
      if (key === source || (key.startsWith(source) && key.charCodeAt(source.length) === 0x2e /* . */)) return true;
    }
  }
  return false;
}

/**
 * Moves the custom attributes of one span that would stand in for a field keying its usage and cost (see
 * `DERIVED_FROM`) to `<field>_custom`: `withContext({ metadata: { model: 'v2' } })` around a chat call would
 * otherwise show `v2` as the model that answered, and key the call's token usage and cost by it. A span that sets no
 * such field (an op's) keeps them as they are; one whose new key is taken is left out. Changes `attributes` and
 * `custom` (its custom keys) in place and returns the first key moved, and where to (undefined: left out), if any.
 */
export function moveShadowingCustom(attributes: Attributes, custom: string[]): { key: string; to: string | undefined } | undefined {
  let first: { key: string; to: string | undefined } | undefined;
  for (let i = 0; i < custom.length; i++) {
    const key = custom[i]!;
    const rest = key.slice(ATTR.customPrefix.length);
    const dot = rest.indexOf('.');
    const field = dot === -1 ? rest : rest.slice(0, dot);
    const sources = DERIVED_FROM.get(field);
    if (!sources || !hasAnyKey(attributes, sources)) continue;
    const moved = `${ATTR.customPrefix}${field}_custom${dot === -1 ? '' : rest.slice(dot)}`;
    const free = !(moved in attributes);
    if (free) attributes[moved] = attributes[key];
    delete attributes[key];
    custom[i] = moved;
    first ??= { key, to: free ? moved : undefined };
  }
  return first;
}

/**
 * Makes the custom attributes of one span safe to send: the trace service expands dotted keys into a tree and
 * rejects the whole span when a key is both a value and the prefix of another key (reference trace-service.md
 * §3.1), such as `wandb.attributes.model` from `withContext()` metadata beside `wandb.attributes.model.version`
 * from an op. Each such value moves to `<key>._value` (dropped if that key is taken), so the call shows
 * `model: { _value, version }`. `custom` lists the span's custom keys ({@link customKeys}). Changes `attributes` in
 * place and returns the first key moved, if any.
 */
export function separateCustomPaths(attributes: Attributes, custom: readonly string[]): string | undefined {
  if (custom.length < 2) return undefined;
  const prefixes = new Set<string>();
  for (const key of custom) {
    for (let dot = key.indexOf('.', ATTR.customPrefix.length); dot !== -1; dot = key.indexOf('.', dot + 1)) {
      prefixes.add(key.slice(0, dot));
    }
  }
  let first: string | undefined;
  for (const key of custom) {
    if (!prefixes.has(key) || !(key in attributes)) continue;
    const value = attributes[key];
    delete attributes[key];
    const moved = `${key}._value`;
    if (!(moved in attributes) && !prefixes.has(moved)) attributes[moved] = value;
    first ??= key;
  }
  return first;
}
