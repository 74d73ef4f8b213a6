import { abortableSleep } from './abortable-sleep.js';
import { type JobProgress, advanceProgress, initialProgress } from './job-progress.js';
import type { EventListParams, TrainingJobEvent } from './types/events.js';
import type { Paginated } from './types/pagination.js';

/** Options of `training.jobs.watch()`. */
export interface WatchJobOptions {
  /** Called once per new event, in order, duplicates removed. A throw stops the watch and rejects with it. */
  onEvent?: (event: TrainingJobEvent, progress: JobProgress) => void;
  /** Stops the watch; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Wait between polls while events keep coming. Default 1000 ms. */
  pollIntervalMs?: number;
  /** The wait grows by half each quiet poll, up to this. Default 10 × `pollIntervalMs`, at most 30 s. */
  maxPollIntervalMs?: number;
  /** Events per page, 1 to 100. Default 100, so a busy job needs few requests. */
  pageSize?: number;
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
const MAX_DEFAULT_POLL_INTERVAL_MS = 30_000;

function positive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new TypeError(`weft: \`${name}\` must be a positive number of milliseconds, got ${value}.`);
  }
  return value;
}

/**
 * Polls a job's events until a terminal one (`training_ended`, `training_failed`) and resolves with the
 * outcome. Each poll follows `has_more` pages at once; the cursor is the last id seen, and events are
 * de-duplicated by id because the service may deliver one again. Quiet polls back off; a poll that brings
 * news resets the wait.
 */
export async function watchJob(listPage: ListEventsPage, options: WatchJobOptions = {}): Promise<WatchJobOutcome> {
  const baseInterval = positive(options.pollIntervalMs, 'pollIntervalMs', DEFAULT_POLL_INTERVAL_MS);
  const maxInterval = positive(
    options.maxPollIntervalMs,
    'maxPollIntervalMs',
    Math.max(baseInterval, Math.min(baseInterval * 10, MAX_DEFAULT_POLL_INTERVAL_MS)),
  );
  const limit = options.pageSize ?? 100;
  const { signal } = options;
  const seen = new Set<string>();
  const events: TrainingJobEvent[] = [];
  let progress = initialProgress();
  let cursor: string | undefined;
  let interval = baseInterval;

  for (;;) {
    signal?.throwIfAborted();
    let fresh = 0;
    for (;;) {
      const page = await listPage(cursor === undefined ? { limit } : { after: cursor, limit }, signal);
      for (const event of page.data) {
        if (seen.has(event.id)) continue;
        seen.add(event.id);
        events.push(event);
        fresh += 1;
        progress = advanceProgress(progress, event);
        options.onEvent?.(event, progress);
        if (progress.status === 'succeeded' || progress.status === 'failed') {
          const outcome: WatchJobOutcome = { status: progress.status, events, progress };
          if (progress.error !== undefined) outcome.error = progress.error;
          return outcome;
        }
      }
      const last = page.data.at(-1);
      if (last !== undefined) cursor = last.id;
      // An empty page that claims more would loop forever on the same cursor.
      if (!page.has_more || last === undefined) break;
    }
    interval = fresh > 0 ? baseInterval : Math.min(maxInterval, interval * 1.5);
    await abortableSleep(interval, signal);
  }
}
