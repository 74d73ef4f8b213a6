import { WeftAbortError, WeftApiError, WeftConnectionError } from '../core/errors.js';
import { abortableSleep } from '../core/abortable-sleep.js';
import { CLIENT_CLOSED, clientClosedError, wasNeverSent } from '../core/attempt.js';
import { MAX_TIMER_MS } from '../core/timer-limit.js';
import { describeValue, WeftConfigError } from '../../config/index.js';
import { type JobProgress, advanceProgress, initialProgress } from './job-progress.js';
import { paginate } from './paginate.js';
import { type EventListParams, TERMINAL_EVENT_TYPES, type TrainingJobEvent } from './types/events.js';
import type { Paginated } from './types/pagination.js';

/** Options of `training.jobs.watch()`. */
export interface WatchJobOptions {
  /** Called once per new event, in order, duplicates removed. A throw stops the watch and rejects with it. */
  onEvent?: ((event: TrainingJobEvent, progress: JobProgress) => void) | undefined;
  /** Stops the watch; the promise rejects with a `WeftAbortError` whose `cause` is the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Wait between polls while events keep coming. Default 1000 ms. */
  pollIntervalMs?: number | undefined;
  /** The wait grows by half each quiet poll, up to this. Default 10 × `pollIntervalMs`, at most 30 s. */
  maxPollIntervalMs?: number | undefined;
  /** Events per page, 1 to 100. Default 100, so a busy job needs few requests. */
  pageSize?: number | undefined;
  /**
   * Polls that may fail in a row for a passing reason (no connection, a timeout, 408, 429, 5xx), after the
   * HTTP core's own retries, before the watch gives up with the last error. A long job outlives a short
   * outage. Default 5; 0 gives up at the first. A service that refuses the very first connections (before it
   * has answered once) is not waited out: the watch rejects with that `WeftConnectionError` at once.
   */
  maxConsecutiveErrors?: number | undefined;
}

/** How a watched job ended. */
export interface WatchJobOutcome {
  status: 'succeeded' | 'failed';
  /** Every event of the job, in order, each once. */
  events: TrainingJobEvent[];
  /** The last progress summary (step, metrics). */
  progress: JobProgress;
  /** The failure message of a failed job. */
  error?: string;
}

/** Reads one page of a job's events. */
export type ListEventsPage = (params: EventListParams, signal: AbortSignal | undefined) => Promise<Paginated<TrainingJobEvent>>;

const DEFAULT_POLL_INTERVAL_MS = 1000;
const DEFAULT_MAX_CONSECUTIVE_ERRORS = 5;
const MAX_DEFAULT_POLL_INTERVAL_MS = 30_000;

function positive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    // Above MAX_TIMER_MS a Node timer fires after 1 ms: the watch would poll in a tight loop.
    throw new WeftConfigError(
      name,
      undefined,
      `weft: option \`${name}\` must be a positive number of milliseconds up to ${MAX_TIMER_MS} (about 24.8 days), got ${describeValue(value)}.`,
    );
  }
  return value;
}

function integerIn(value: number | undefined, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `${min} up` : `${min} to ${max}`;
    throw new WeftConfigError(name, undefined, `weft: option \`${name}\` must be an integer from ${range}, got ${describeValue(value)}.`);
  }
  return value;
}

/**
 * Polls a job's events until a terminal one (`training_ended`, `training_failed`) and resolves with the
 * outcome. Each poll follows `has_more` pages at once; the cursor is the last id seen, and events are
 * de-duplicated by id because the service may deliver one again. Quiet polls back off; a poll that brings
 * news resets the wait. Passing failures (network, 408, 429, 5xx) are waited out up to `maxConsecutiveErrors`,
 * except a service that cannot be reached before it has ever answered (not started, or a wrong address): that
 * rejects at once.
 */
export async function watchJob(
  listPage: ListEventsPage,
  eventsPath: string,
  options: WatchJobOptions = {},
  closing?: AbortSignal,
): Promise<WatchJobOutcome> {
  const baseInterval = positive(options.pollIntervalMs, 'pollIntervalMs', DEFAULT_POLL_INTERVAL_MS);
  const maxInterval = positive(
    options.maxPollIntervalMs,
    'maxPollIntervalMs',
    Math.max(baseInterval, Math.min(baseInterval * 10, MAX_DEFAULT_POLL_INTERVAL_MS)),
  );
  const pageSize = integerIn(options.pageSize, 'pageSize', 1, 100, 100);
  const maxErrors = integerIn(options.maxConsecutiveErrors, 'maxConsecutiveErrors', 0, Number.MAX_SAFE_INTEGER, DEFAULT_MAX_CONSECUTIVE_ERRORS);
  const { signal } = options;
  const aborted = () => new WeftAbortError('GET', eventsPath, { cause: signal?.reason });
  // The wait between polls ends when the client is closed, too, so that close() leaves nothing pending.
  const stopped = () => (signal?.aborted ? aborted() : clientClosedError('GET', eventsPath, 'was cut short: the client was closed'));
  const reader = new EventReader(listPage, pageSize, options.onEvent, signal);
  let interval = baseInterval;
  let failures = 0;
  // Whether the service has answered at all, even with an error: until it has, a refused connection more likely
  // means a wrong address or a service not started than a passing outage, and is not waited out.
  let reached = false;

  for (;;) {
    if (signal?.aborted) throw aborted();
    let fresh = 0;
    try {
      const polled = await reader.poll();
      if (typeof polled !== 'number') return polled;
      fresh = polled;
      failures = 0;
      reached = true;
    } catch (error) {
      failures += 1;
      if (error instanceof WeftApiError) reached = true;
      if (!isPassing(error) || failures > maxErrors) throw error;
      if (!reached && isUnreachable(error)) throw error;
    }
    interval = fresh > 0 ? baseInterval : Math.min(maxInterval, interval * 1.5);
    await abortableSleep(interval, [signal, closing], stopped);
  }
}

/** Reads a job's events page by page, keeping the cursor, the events seen and the progress between polls. */
class EventReader {
  private readonly seen = new Set<string>();
  private readonly events: TrainingJobEvent[] = [];
  private progress = initialProgress();
  private cursor: string | undefined;

  constructor(
    private readonly listPage: ListEventsPage,
    private readonly limit: number,
    private readonly onEvent: WatchJobOptions['onEvent'],
    private readonly signal: AbortSignal | undefined,
  ) {}

  /**
   * Reads every page there is now, on from the last event read by the polls before; returns how many new events
   * came, or the outcome once the job ended.
   */
  async poll(): Promise<number | WatchJobOutcome> {
    let fresh = 0;
    const pages = paginate(
      (after) => this.listPage(after === undefined ? { limit: this.limit } : { after, limit: this.limit }, this.signal),
      this.cursor,
    );
    for await (const event of pages) {
      // Kept per event, so a poll that fails on a later page resumes after the last page it read.
      this.cursor = event.id;
      if (this.seen.has(event.id)) continue;
      this.seen.add(event.id);
      this.events.push(event);
      fresh += 1;
      this.progress = advanceProgress(this.progress, event);
      this.onEvent?.(event, this.progress);
      // The watch stops where a caller's own loop over TERMINAL_EVENT_TYPES would.
      if (TERMINAL_EVENT_TYPES.includes(event.type)) return this.outcome();
    }
    return fresh;
  }

  /** The outcome at a terminal event, whose status advanceProgress has set. */
  private outcome(): WatchJobOutcome {
    const { status, error } = this.progress;
    const ended = status === 'succeeded' ? 'succeeded' : 'failed';
    return { status: ended, events: this.events, progress: this.progress, ...(error !== undefined ? { error } : {}) };
  }
}

/** The request never reached a service: the connection was refused, or the host not found. */
export function isUnreachable(error: unknown): error is WeftConnectionError {
  return error instanceof WeftConnectionError && wasNeverSent(error);
}

/** Failures that say nothing about the job: the service or the network was briefly unable to answer. */
function isPassing(error: unknown): boolean {
  if (error instanceof WeftAbortError) return false;
  // A closed client will not answer again.
  if (error instanceof WeftConnectionError) return error.code !== CLIENT_CLOSED;
  return error instanceof WeftApiError && (error.status === 408 || error.status === 429 || error.status >= 500);
}
