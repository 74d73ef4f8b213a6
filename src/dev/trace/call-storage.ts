import type { TraceStore } from './store.js';
import type { CallSchema } from './types.js';

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value ?? null));

/**
 * The bytes a call's data takes, as the service counts them: its attributes, inputs, output and summary as
 * stored JSON (an unended call has no summary yet).
 */
export function callStorageSize(call: CallSchema): number {
  return jsonBytes(call.attributes) + jsonBytes(call.inputs) + jsonBytes(call.output) + (call.ended_at ? jsonBytes(call.summary ?? {}) : 0);
}

/** The sizes a read asked for: the call's own, and for a trace's root the whole trace's (null below the root). */
export function storageSizes(
  store: TraceStore,
  call: CallSchema,
  asked: { include_storage_size?: boolean | null; include_total_storage_size?: boolean | null },
): { storage_size_bytes?: number; total_storage_size_bytes?: number | null } {
  const own = asked.include_storage_size ? { storage_size_bytes: callStorageSize(call) } : {};
  if (!asked.include_total_storage_size) return own;
  const total = call.parent_id ? null : store.traceCalls(call.project_id, call.trace_id).reduce((n, c) => n + callStorageSize(c), 0);
  return { ...own, total_storage_size_bytes: total };
}
