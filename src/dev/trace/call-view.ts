import { parseVersionRef } from './ref-values.js';
import { timestampMicros } from './timestamps.js';
import type { CallSchema, Feedback, TraceStatus } from './types.js';

/**
 * The status the service computes, whatever status the writer stored (trace_server_common,
 * `make_derived_summary_fields`): an exception is `error`, no end `running`, an error counted among the
 * descendants (`summary.status_counts.error`) `descendant_error`, else `success`.
 */
function statusOf(call: CallSchema): TraceStatus {
  if (call.exception !== undefined && call.exception !== null) return 'error';
  if (!call.ended_at) return 'running';
  const counts = call.summary?.status_counts as Record<string, unknown> | undefined;
  if (typeof counts?.error === 'number' && counts.error > 0) return 'descendant_error';
  return 'success';
}

/** Whole milliseconds from start to end, the microseconds of the difference dropped, as the service counts. */
function latencyMs(started: string, ended: string): number | undefined {
  const [start, end] = [timestampMicros(started), timestampMicros(ended)];
  if (start === undefined || end === undefined) return undefined;
  return end > start ? Number((end - start) / 1000n) : 0;
}

/** The name in an op or object ref (`weave:///e/p/op/predict:abc` → `predict`), as the service names a trace. */
function refName(opName: string): string | undefined {
  return parseVersionRef(opName)?.objectId;
}

/** What a read asked to have added: the call's feedback and costs (to `summary.weave`), its storage sizes. */
export interface CallExtras {
  feedback?: Feedback[];
  costs?: Record<string, Record<string, unknown>>;
  sizes?: { storage_size_bytes?: number; total_storage_size_bytes?: number | null };
}

/**
 * A stored call as reads return it: every `CallSchema` key present (null when unset), and the fields the
 * service computes in `summary.weave` (status, trace name, latency).
 */
export function presentCall(call: CallSchema, extras: CallExtras = {}): CallSchema {
  const { feedback, costs, sizes } = extras;
  const latency =
    call.ended_at && call.started_at ? latencyMs(call.started_at, call.ended_at) : undefined;
  // The service recomputes status and latency on every read; a stored one does not count. An op ref's
  // trace name is the op's name, not the whole ref.
  const { latency_ms: _stored, ...stored } = call.summary?.weave ?? {};
  const weave = {
    ...stored,
    status: statusOf(call),
    trace_name: call.summary?.weave?.trace_name ?? call.display_name ?? refName(call.op_name) ?? call.op_name,
    ...(latency !== undefined ? { latency_ms: latency } : {}),
    ...(feedback ? { feedback } : {}),
    ...(costs ? { costs } : {}),
  };
  return {
    id: call.id,
    project_id: call.project_id,
    op_name: call.op_name,
    display_name: call.display_name ?? null,
    trace_id: call.trace_id,
    parent_id: call.parent_id ?? null,
    thread_id: call.thread_id ?? null,
    turn_id: call.turn_id ?? null,
    started_at: call.started_at,
    ended_at: call.ended_at ?? null,
    attributes: call.attributes,
    inputs: call.inputs,
    output: call.output ?? null,
    exception: call.exception ?? null,
    summary: { ...(call.summary ?? {}), weave },
    wb_user_id: call.wb_user_id ?? null,
    wb_run_id: call.wb_run_id ?? null,
    wb_run_step: call.wb_run_step ?? null,
    wb_run_step_end: call.wb_run_step_end ?? null,
    deleted_at: call.deleted_at ?? null,
    // Every CallSchema key comes back; the sizes are null unless asked for.
    storage_size_bytes: sizes?.storage_size_bytes ?? null,
    total_storage_size_bytes: sizes?.total_storage_size_bytes ?? null,
  };
}
