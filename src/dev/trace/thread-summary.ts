import { quantile } from './quantile.js';
import type { CallSchema } from './types.js';

/** `ThreadSchema`: one conversation thread, summarised from its turns. */
export interface ThreadSummary {
  thread_id: string;
  turn_count: number;
  start_time: string;
  last_updated: string;
  first_turn_id: string | null;
  last_turn_id: string | null;
  p50_turn_duration_ms: number | null;
  p99_turn_duration_ms: number | null;
}

/** The fields a thread list may be sorted by (the service refuses others). */
export const THREAD_SORT_FIELDS = [
  'thread_id',
  'turn_count',
  'start_time',
  'last_updated',
  'p50_turn_duration_ms',
  'p99_turn_duration_ms',
] as const;

// A turn is the outermost call of one exchange: the service marks it with turn_id equal to its own id.
const isTurn = (call: CallSchema): boolean => !!call.thread_id && call.turn_id === call.id;

const time = (iso: string): number => Date.parse(iso);

function summarize(threadId: string, turns: CallSchema[]): ThreadSummary {
  const byStart = [...turns].sort((a, b) => time(a.started_at) - time(b.started_at));
  // A running turn has no end yet: it was last updated when it started.
  const updatedAt = (call: CallSchema) => call.ended_at ?? call.started_at;
  const byUpdate = [...turns].sort((a, b) => time(updatedAt(a)) - time(updatedAt(b)));
  const durations = turns
    .filter((t) => t.ended_at)
    .map((t) => Math.max(0, time(t.ended_at!) - time(t.started_at)))
    .sort((a, b) => a - b);
  return {
    thread_id: threadId,
    turn_count: turns.length,
    start_time: byStart[0]!.started_at,
    last_updated: updatedAt(byUpdate[byUpdate.length - 1]!),
    first_turn_id: byStart[0]!.id,
    last_turn_id: byUpdate[byUpdate.length - 1]!.id,
    p50_turn_duration_ms: quantile(durations, 0.5),
    p99_turn_duration_ms: quantile(durations, 0.99),
  };
}

/** Which turns count: those of the listed threads that started within the window (all when unset). */
export interface ThreadsFilter {
  after_datetime?: string | null;
  before_datetime?: string | null;
  thread_ids?: string[] | null;
}

/**
 * The threads of a project, derived from its calls: the calls that share a `thread_id` and are turns
 * (`turn_id` equal to their id), counted and timed per thread. Calls inside a turn are not turns. As in the
 * service's query (threads_query_builder), the window is open at both ends and an empty `thread_ids` is no
 * filter.
 */
export function summarizeThreads(calls: Iterable<CallSchema>, filter: ThreadsFilter = {}): ThreadSummary[] {
  const after = filter.after_datetime ? time(filter.after_datetime) : -Infinity;
  const before = filter.before_datetime ? time(filter.before_datetime) : Infinity;
  const turnsByThread = new Map<string, CallSchema[]>();
  for (const call of calls) {
    if (!isTurn(call) || call.deleted_at) continue;
    if (filter.thread_ids?.length && !filter.thread_ids.includes(call.thread_id!)) continue;
    const started = time(call.started_at);
    if (started <= after || started >= before) continue;
    const turns = turnsByThread.get(call.thread_id!) ?? [];
    turns.push(call);
    turnsByThread.set(call.thread_id!, turns);
  }
  return [...turnsByThread].map(([threadId, turns]) => summarize(threadId, turns));
}
