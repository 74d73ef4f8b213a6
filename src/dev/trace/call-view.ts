import type { CallSchema, Feedback, TraceStatus } from './types.js';

function statusOf(call: CallSchema): TraceStatus {
  const stored = call.summary?.weave?.status;
  if (stored) return stored;
  if (call.exception !== undefined && call.exception !== null) return 'error';
  if (!call.ended_at) return 'running';
  return 'success';
}

/** What a read asked to have added to `summary.weave`: the call's feedback, its costs. */
export interface CallExtras {
  feedback?: Feedback[];
  costs?: Record<string, Record<string, unknown>>;
}

/**
 * A stored call as reads return it: every `CallSchema` key present (null when unset), and the fields the
 * service computes in `summary.weave` (status, trace name, latency).
 */
export function presentCall(call: CallSchema, extras: CallExtras = {}): CallSchema {
  const { feedback, costs } = extras;
  const latency =
    call.ended_at && call.started_at ? Math.max(0, Date.parse(call.ended_at) - Date.parse(call.started_at)) : undefined;
  const weave = {
    ...(call.summary?.weave ?? {}),
    status: statusOf(call),
    trace_name: call.summary?.weave?.trace_name ?? call.display_name ?? call.op_name,
    ...(call.summary?.weave?.latency_ms === undefined && latency !== undefined ? { latency_ms: latency } : {}),
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
  };
}
