/**
 * Serializes recorded messages to JSON within size limits, cutting long text inside each message rather than
 * the JSON itself, so the attribute always parses. A cut is marked in the text: `…[weft: N more chars]`. Keys weft
 * knows (a traced client's, its own) are removed from the text first, before any cut could leave part of one.
 */
import { MARK } from '../../marks.js';
import { scrubSecrets } from '../../secrets.js';

/** Keys whose values describe structure, not content: never cut. */
const STRUCTURAL_KEYS = new Set(['type', 'role', 'id', 'name', 'finish_reason', 'mime_type', 'modality', 'file_id']);
/** Room kept for one marker, e.g. `…[weft: 1234567 more chars]`. */
const MARKER_ROOM = 32;
/** Below this an item is not worth keeping: it would hold little more than its marker. */
const MIN_ITEM_LENGTH = 128;

/**
 * JSON of `items` as an array, each item at most `maxItemLength` characters and the whole at most
 * `maxTotalLength`. When even short items do not fit, the oldest are left out and `droppedMarker(count)` is put
 * first in their place. Returns undefined when nothing fits.
 */
export function serializeWithinLimits(
  items: readonly unknown[],
  maxItemLength: number,
  maxTotalLength: number,
  droppedMarker: (count: number) => unknown,
): string | undefined {
  let encoded = items.map((item) => encodeItem(item, maxItemLength));
  if (totalLength(encoded) <= maxTotalLength) return `[${encoded.join(',')}]`;

  // Too long together: give every item an equal share of what is left after the short ones.
  let dropped = 0;
  let cap = shareCap(encoded, maxTotalLength);
  while (cap < MIN_ITEM_LENGTH && encoded.length > 1) {
    dropped += 1;
    encoded = encoded.slice(1);
    cap = shareCap([JSON.stringify(droppedMarker(dropped)), ...encoded], maxTotalLength);
  }
  if (cap < MIN_ITEM_LENGTH) return undefined;
  const kept = items.slice(dropped).map((item, i) => (encoded[i]!.length > cap ? encodeItem(item, cap) : encoded[i]!));
  const all = dropped > 0 ? [JSON.stringify(droppedMarker(dropped)), ...kept] : kept;
  const json = `[${all.join(',')}]`;
  return json.length <= maxTotalLength ? json : undefined;
}

function totalLength(encoded: readonly string[]): number {
  let total = 2 + Math.max(0, encoded.length - 1);
  for (const item of encoded) total += item.length;
  return total;
}

/** The largest per-item length such that all items, each capped at it, fit in `limit` (water-filling). */
function shareCap(encoded: readonly string[], limit: number): number {
  const lengths = encoded.map((e) => e.length).sort((a, b) => a - b);
  let available = limit - 2 - Math.max(0, lengths.length - 1);
  for (let i = 0; i < lengths.length; i++) {
    const remaining = lengths.length - i;
    const share = Math.floor(available / remaining);
    if (lengths[i]! > share) return share;
    available -= lengths[i]!;
  }
  return Number.POSITIVE_INFINITY;
}

/** JSON of one item, without known secrets, at most `limit` characters. */
function encodeItem(item: unknown, limit: number): string {
  const json = scrubbedJson(item);
  if (json.length <= limit) return json;
  return cutItem(json, limit);
}

/**
 * JSON of `item` with every known secret in its texts replaced, before anything is cut: a cut inside a key
 * would leave part of it, which scrubbing no longer finds. The texts are scrubbed one by one (not the JSON), so
 * the result always parses; the JSON is only re-read when it holds a secret, which is rare (a key with a character
 * JSON escapes, a quote or a backslash, is not found in it: API keys have none).
 */
function scrubbedJson(item: unknown): string {
  const json = JSON.stringify(item) ?? 'null';
  if (scrubSecrets(json) === json) return json;
  return JSON.stringify(JSON.parse(json, (_key, value: unknown) => (typeof value === 'string' ? scrubSecrets(value) : value)));
}

interface Leaf {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  value: string;
}

/** `json` (an item's JSON, longer than `limit`) with its longest texts cut until it fits. */
function cutItem(json: string, limit: number): string {
  const original: unknown = JSON.parse(json);
  const lengths = collectLeaves(original).map((leaf) => leaf.value.length);
  if (lengths.length > 0) {
    let cap = capFor(lengths, json.length - limit + lengths.length * MARKER_ROOM);
    // Escapes make JSON longer than the text: measure, and lower the cap by what is still over.
    for (let attempt = 0; attempt < 20 && cap >= 0; attempt++) {
      const copy: unknown = JSON.parse(json);
      let cut = 0;
      for (const leaf of collectLeaves(copy)) {
        if (leaf.value.length <= cap) continue;
        setLeaf(leaf, cutText(leaf.value, cap));
        cut += 1;
      }
      const cutJson = JSON.stringify(copy);
      if (cutJson.length <= limit) return cutJson;
      cap -= Math.max(1, Math.ceil((cutJson.length - limit) / Math.max(1, cut)));
    }
  }
  return fallback(original, limit);
}

/** Last resort when structure alone is too long: the item's structural fields, and its JSON, cut, as text. */
function fallback(item: unknown, limit: number): string {
  const text = JSON.stringify(item);
  const out: Record<string, unknown> = {};
  if (item && typeof item === 'object' && !Array.isArray(item)) {
    for (const key of ['role', 'type', 'name', 'finish_reason']) {
      const value = (item as Record<string, unknown>)[key];
      if (typeof value === 'string' && value.length <= 64) out[key] = value;
    }
  }
  const withText = (keep: number): string => {
    const content = cutText(text, keep);
    return JSON.stringify('role' in out ? { ...out, parts: [{ type: 'text', content }] } : { ...out, content });
  };
  let keep = limit;
  let json = withText(keep);
  // Each step removes at least the excess (a character is at least one character of JSON), so this ends.
  while (json.length > limit && keep > 0) {
    keep = Math.max(0, keep - (json.length - limit));
    json = withText(keep);
  }
  return json;
}

/** The cap on leaf length that removes at least `toRemove` characters in total. */
function capFor(lengths: readonly number[], toRemove: number): number {
  const sorted = [...lengths].sort((a, b) => b - a);
  let removed = 0;
  for (let i = 0; i < sorted.length; i++) {
    const next = sorted[i + 1] ?? 0;
    // Lowering the cap from sorted[i] to `next` removes (sorted[i] - next) from each of the i+1 longest.
    const step = (sorted[i]! - next) * (i + 1);
    if (removed + step >= toRemove) return Math.max(0, sorted[i]! - Math.ceil((toRemove - removed) / (i + 1)));
    removed += step;
  }
  return 0;
}

/** Cuts text to `keep` characters (not splitting a surrogate pair) and marks the cut. */
function cutText(text: string, keep: number): string {
  let end = Math.max(0, Math.min(keep, text.length));
  const code = text.charCodeAt(end - 1);
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}${MARK.cutString(text.length - end)}`;
}

function collectLeaves(value: unknown, out: Leaf[] = [], depth = 0): Leaf[] {
  if (depth > 64 || !value || typeof value !== 'object') return out;
  if (Array.isArray(value)) {
    value.forEach((child, i) => {
      if (typeof child === 'string') out.push({ holder: value, key: i, value: child });
      else collectLeaves(child, out, depth + 1);
    });
    return out;
  }
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    if (typeof child === 'string') {
      if (!STRUCTURAL_KEYS.has(key)) out.push({ holder: value as Record<string, unknown>, key, value: child });
    } else {
      collectLeaves(child, out, depth + 1);
    }
  }
  return out;
}

function setLeaf(leaf: Leaf, value: string): void {
  (leaf.holder as Record<string | number, unknown>)[leaf.key] = value;
}
