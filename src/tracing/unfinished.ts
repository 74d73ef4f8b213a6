import { reportTracingFailure } from './failures.js';

/**
 * A traced call whose span has not ended yet: an op's call, a chat call (a stream half-read, a response awaited).
 * When the process ends first, its span would never be exported: the one LLM call a SIGTERM cut off would be
 * missing from the trace. register()'s exit hooks and `shutdown()` end each with {@link endUnfinished} first.
 */
export interface Unfinished {
  /**
   * Ends the span as the process ends: as failed with `error`, keeping what it recorded so far (a stream's output
   * received), or, for a call that did complete and whose value was only never read, without failing.
   */
  endUnfinished(error: Error): void;
}

/**
 * At most this many calls are tracked at once, the latest: the oldest makes room, and is not ended at exit (its
 * span is lost, as it would be without tracking). Tracking holds a call strongly (a weak reference costs about
 * 1 µs a call), so this bounds what an app keeps that leaves calls unfinished for good (an API promise it never
 * awaits, a traced generator it drops half-read): those are the oldest, and go first.
 */
const MAX_TRACKED = 1024;

// Keyed on globalThis, so that the exit hooks of the copy of weft that register() ran in (ESM, say) also end the
// calls of the other copy (CommonJS) in the same process.
const KEY = Symbol.for('weft.tracing.unfinished');
const holder = globalThis as { [KEY]?: Set<Unfinished> };
holder[KEY] ??= new Set();
const unfinished: Set<Unfinished> = holder[KEY];

/** Tracks a call that has started, until {@link finished}. */
export function started(call: Unfinished): void {
  if (unfinished.size >= MAX_TRACKED) unfinished.delete(unfinished.values().next().value as Unfinished);
  unfinished.add(call);
}

/** Stops tracking a call: its span has ended. */
export function finished(call: Unfinished): void {
  unfinished.delete(call);
}

/**
 * Ends every call still unfinished, with what it has. One still waiting for its result fails (`error.type`
 * CallUnfinished) with an error saying why tracing stops (`why`: "the process received SIGTERM", say); a stream that
 * already had its whole answer, only its usage chunk still to come, ends as it would have. Returns how many it ended.
 */
export function endUnfinished(why: string): number {
  if (unfinished.size === 0) return 0;
  const error = new Error(`${why} before this call ended; recorded as it stood`);
  error.name = 'CallUnfinished';
  // Nothing of weft's own frames: the exception event shows what happened, not where weft noticed.
  error.stack = `${error.name}: ${error.message}`;
  const calls = [...unfinished];
  unfinished.clear();
  for (const call of calls) {
    try {
      call.endUnfinished(error);
    } catch (failure) {
      reportTracingFailure('end at exit', failure);
    }
  }
  return calls.length;
}
