import { HttpError } from '../http.js';
import type { CallSchema, Feedback, SortBy } from './types.js';

/**
 * Feedback fields in call queries: `feedback.[<feedback_type>].payload.<path>` (also `.runnable_ref` and
 * `.trigger_ref`), which the service lets a call query filter and sort on (calls_query_builder fields.py,
 * `CallsMergedFeedbackPayloadField`, joined on the feedback whose `weave_ref` is the call). `*` as the type
 * reads feedback of any type. What the service reads when a call has several feedback of the type: its
 * `anyIf(payload_dump, feedback_type = <type>)` picks one of them (weft dev takes the oldest), then reads the
 * path from that one; with `*` it picks any feedback whose value at the path is not empty (weft dev: the
 * oldest such). A call with none reads as the empty text, as a missing JSON path does.
 */

// Where the values are put on the record a query reads: a key no call has, so that the query and sort code,
// which read records by dot path, read them as any other field. `j` keys hold JSON paths (read as JSON_VALUE
// text), `p` keys plain text.
const KEY = '__weft_feedback';

interface FeedbackField {
  type: string;
  column: 'payload' | 'runnable_ref' | 'trigger_ref';
  path: string[];
}

/** The key a field's value goes under on the record: `j<n>` for a JSON path (read as JSON_VALUE text), `p<n>` plain. */
function slotOf(field: FeedbackField, n: number): string {
  return `${field.column === 'payload' && field.path.length > 0 ? 'j' : 'p'}${n}`;
}

/** Splits a dot path at dots not escaped with a backslash, unescaping `\.` (the service's `split_escaped_field_path`). */
function splitEscaped(path: string): string[] {
  return path.split(/(?<!\\)\./).map((p) => p.replace(/\\\./g, '.'));
}

/**
 * The field a `feedback.`-name asks for; the service's InvalidFieldError when it names none: a 422 with a
 * `{reason}` body (its error registry: a well-formed request asking for a field it does not support).
 */
function parse(name: string): FeedbackField {
  const rest = name.slice('feedback.'.length);
  const m = /^\[(.+)\]\.(.+)$/.exec(rest);
  if (!m) throw new HttpError(422, `Invalid feedback path: ${rest}`);
  const [head, ...path] = splitEscaped(m[2]!);
  if (head === 'payload') return { type: m[1]!, column: 'payload', path };
  if (head === 'runnable_ref' || head === 'trigger_ref') return { type: m[1]!, column: head, path: [] };
  throw new HttpError(422, `Invalid feedback path: ${m[2]}`);
}

function at(value: unknown, path: string[]): unknown {
  let current = value;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = Array.isArray(current) ? current[Number(part)] : (current as Record<string, unknown>)[part];
  }
  return current;
}

/** The value of one field for a call, given its feedback (oldest first). */
function fieldValue(field: FeedbackField, feedback: Feedback[]): unknown {
  const ofType = field.type === '*' ? feedback : feedback.filter((f) => f.feedback_type === field.type);
  if (field.column !== 'payload') return ofType[0]?.[field.column] ?? '';
  if (field.path.length === 0) return ofType[0] ? JSON.stringify(ofType[0].payload) : '';
  if (field.type !== '*') return at(ofType[0]?.payload, field.path);
  return ofType.map((f) => at(f.payload, field.path)).find((v) => v !== undefined && v !== null && v !== '');
}

/** A call query's feedback fields, renamed to keys of the record it reads, and how to fill those keys. */
export class FeedbackFields {
  private readonly fields: { field: FeedbackField; slot: string }[] = [];
  private readonly keys = new Map<string, string>();
  readonly query: unknown;
  readonly sortBy: SortBy[] | undefined;

  constructor(query: unknown, sortBy: SortBy[] | undefined) {
    this.query = this.rewrite(query);
    this.sortBy = sortBy?.map((s) => (s.field.startsWith('feedback.') ? { ...s, field: this.keyOf(s.field) } : s));
  }

  /** True when the query or sort reads feedback. */
  get used(): boolean {
    return this.fields.length > 0;
  }

  /** True for the keys that hold a JSON path's value, which the service reads as JSON_VALUE text. */
  static jsonPath(path: string): boolean {
    return path.startsWith(`${KEY}.j`);
  }

  /** The call with its feedback fields' values under their keys. */
  withValues(call: CallSchema, feedback: Feedback[]): CallSchema {
    const values: Record<string, unknown> = {};
    for (const { field, slot } of this.fields) values[slot] = fieldValue(field, feedback);
    return { ...call, [KEY]: values } as CallSchema;
  }

  private keyOf(name: string): string {
    let key = this.keys.get(name);
    if (key === undefined) {
      const field = parse(name);
      const slot = slotOf(field, this.fields.length);
      key = `${KEY}.${slot}`;
      this.fields.push({ field, slot });
      this.keys.set(name, key);
    }
    return key;
  }

  private rewrite(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((n) => this.rewrite(n));
    if (node === null || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => {
        if (k === '$getField' && typeof v === 'string' && v.startsWith('feedback.')) return [k, this.keyOf(v)];
        // A literal is data, not a field: left as it is.
        return [k, k === '$literal' ? v : this.rewrite(v)];
      }),
    );
  }
}
