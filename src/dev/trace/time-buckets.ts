import { HttpError } from '../http.js';
import type { FieldSpec } from '../validate.js';

/** A time window cut into buckets: bounds in milliseconds, bucket size in seconds. */
export interface BucketWindow {
  start: number;
  end: number;
  granularity: number;
}

/** The fields of a stats request that the buckets depend on (`/calls/stats`, `/feedback/stats`). */
export interface StatsWindow {
  start: string;
  end?: string | null;
  granularity?: number | null;
  timezone?: string | null;
}

/** The request fields of {@link StatsWindow}. */
export const STATS_WINDOW_FIELDS: Record<string, FieldSpec> = {
  start: { type: 'datetime', required: true },
  end: { type: 'datetime', nullable: true },
  granularity: { type: 'integer', nullable: true },
  timezone: { type: 'string', nullable: true },
};

/**
 * Checks a stats request's window and returns it cut into buckets, with the fields every stats answer
 * starts with. Buckets are cut from the Unix epoch (see {@link bucketize}), so the zone names the caller's view but
 * does not move them.
 */
export function statsWindow(req: StatsWindow): { window: BucketWindow; header: { start: string; end: string; granularity: number; timezone: string } } {
  const timezone = checkTimezone(req.timezone ?? 'UTC');
  const window = bucketWindow(req);
  return {
    window,
    header: { start: new Date(window.start).toISOString(), end: new Date(window.end).toISOString(), granularity: window.granularity, timezone },
  };
}

/**
 * The bucket size the service picks when none is asked for, by the window's length: 5 minutes up to 2 hours, an hour
 * up to 12 hours, 6 hours up to 3 days, 12 hours up to 14 days, a day beyond.
 */
function autoGranularity(spanSeconds: number): number {
  if (spanSeconds <= 2 * 3600) return 300;
  if (spanSeconds <= 12 * 3600) return 3600;
  if (spanSeconds <= 3 * 86_400) return 6 * 3600;
  if (spanSeconds <= 14 * 86_400) return 12 * 3600;
  return 86_400;
}

/** The most buckets one answer has: a finer size, asked for or not, is made coarser until the window fits. */
const MAX_BUCKETS = 10_000;

/** Checks an IANA time zone name, or throws a 422 naming the field. */
function checkTimezone(timezone: string): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
  } catch {
    throw new HttpError(422, [{ loc: ['body', 'timezone'], msg: `Unknown time zone "${timezone}"`, type: 'value_error' }]);
  }
  return timezone;
}

/** The window's bounds in milliseconds and its bucket size in seconds; a 422 when it is empty or the size below 1. */
function bucketWindow(window: StatsWindow): BucketWindow {
  const start = Date.parse(window.start);
  const end = window.end ? Date.parse(window.end) : Date.now();
  if (end <= start) throw new HttpError(422, [{ loc: ['body', 'end'], msg: 'end must be after start', type: 'value_error' }]);
  const span = (end - start) / 1000;
  const asked = window.granularity ?? autoGranularity(span);
  if (asked < 1) throw new HttpError(422, [{ loc: ['body', 'granularity'], msg: 'granularity must be at least 1', type: 'value_error' }]);
  // As the service does: past MAX_BUCKETS, the smallest size that stays within it.
  const granularity = span / asked <= MAX_BUCKETS ? asked : Math.max(asked, Math.floor(span / MAX_BUCKETS) + 1);
  return { start, end, granularity };
}

/**
 * The window cut into buckets, each with its ISO timestamp and the items whose time falls in it (from `start`, before
 * `end`). Buckets are whole multiples of the size since the Unix epoch, as ClickHouse's `toStartOfInterval` cuts them
 * for the service: the first starts at or before `start`.
 */
export function bucketize<T>(
  items: readonly T[],
  timeOf: (item: T) => string,
  window: BucketWindow,
): { timestamp: string; members: T[] }[] {
  const size = window.granularity * 1000;
  const first = Math.floor(window.start / size) * size;
  const buckets = Array.from({ length: Math.ceil((window.end - first) / size) }, (_, i) => ({
    timestamp: new Date(first + i * size).toISOString(),
    members: [] as T[],
  }));
  for (const item of items) {
    const t = Date.parse(timeOf(item));
    if (t >= window.start && t < window.end) buckets[Math.floor((t - first) / size)]!.members.push(item);
  }
  return buckets;
}

