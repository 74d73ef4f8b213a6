import { isObjectRecord } from '../../is-object-record.js';
import type { RefReader } from './ref-values.js';
import type { CallSchema } from './types.js';


/** The container and key a dot path (`inputs.model`, `output.0.prompt`) ends in, or undefined when it leads nowhere. */
function slot(root: Record<string, unknown>, path: string): { parent: Record<string, unknown> | unknown[]; key: string } | undefined {
  const parts = path.split('.');
  let current: unknown = root;
  for (const part of parts.slice(0, -1)) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  if (current === null || typeof current !== 'object') return undefined;
  return { parent: current as Record<string, unknown>, key: parts[parts.length - 1]! };
}

/**
 * A call with the object refs at `columns` replaced by the values they name, as the service answers a query's
 * `expand_columns` (clickhouse_trace_server_batched, `_expand_call_refs`): shallower paths first, so that a
 * deeper one can reach into what a shallower one brought in; an expanded object keeps its ref as `_ref`. A
 * path that holds no object ref, or one that names nothing stored, is left as it is.
 */
export function expandColumns(call: CallSchema, columns: string[] | undefined, refs: RefReader): CallSchema {
  if (!columns || columns.length === 0) return call;
  const expanded = structuredClone(call) as unknown as Record<string, unknown>;
  const byDepth = [...columns].sort((a, b) => a.split('.').length - b.split('.').length);
  for (const column of byDepth) {
    const at = slot(expanded, column);
    const ref = at && (at.parent as Record<string, unknown>)[at.key];
    if (typeof ref !== 'string') continue;
    // Undefined for anything but an object's or op's ref that names a stored version.
    const val = refs.objectRef(ref);
    if (val === undefined) continue;
    (at!.parent as Record<string, unknown>)[at!.key] = isObjectRecord(val) && !('_ref' in val) ? { ...val, _ref: ref } : val;
  }
  return expanded as unknown as CallSchema;
}
