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
 * starts with. Buckets start at `start` itself, so the zone names the caller's view but does not move them.
 */
export function statsWindow(req: StatsWindow): { window: BucketWindow; header: { start: string; end: string; granularity: number; timezone: string } } {
  const timezone = checkTimezone(req.timezone ?? 'UTC');
  const window = bucketWindow(req);
  return {
    window,
    header: { start: new Date(window.start).toISOString(), end: new Date(window.end).toISOString(), granularity: window.granularity, timezone },
  };
}

/** Bucket sizes the service picks from when none is asked for: the smallest that gives at most 100 buckets. */
const AUTO_GRANULARITIES = [60, 300, 900, 3600, 4 * 3600, 86_400, 7 * 86_400, 30 * 86_400];
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

/** The window's bounds in milliseconds and its bucket size in seconds; a 422 when it is empty or too finely cut. */
function bucketWindow(window: StatsWindow): BucketWindow {
  const start = Date.parse(window.start);
  const end = window.end ? Date.parse(window.end) : Date.now();
  if (end <= start) throw new HttpError(422, [{ loc: ['body', 'end'], msg: 'end must be after start', type: 'value_error' }]);
  const span = (end - start) / 1000;
  const granularity =
    window.granularity ?? AUTO_GRANULARITIES.find((g) => span / g <= 100) ?? AUTO_GRANULARITIES[AUTO_GRANULARITIES.length - 1]!;
  if (granularity < 1 || span / granularity > MAX_BUCKETS) {
    throw new HttpError(422, [
      { loc: ['body', 'granularity'], msg: `granularity must be at least 1 and give at most ${MAX_BUCKETS} buckets`, type: 'value_error' },
    ]);
  }
  return { start, end, granularity };
}

/** The window cut into buckets from its start, each with its ISO timestamp and the items whose time falls in it. */
export function bucketize<T>(
  items: readonly T[],
  timeOf: (item: T) => string,
  window: BucketWindow,
): { timestamp: string; members: T[] }[] {
  const size = window.granularity * 1000;
  const buckets = Array.from({ length: Math.ceil((window.end - window.start) / size) }, (_, i) => ({
    timestamp: new Date(window.start + i * size).toISOString(),
    members: [] as T[],
  }));
  for (const item of items) {
    const t = Date.parse(timeOf(item));
    if (t >= window.start && t < window.end) buckets[Math.floor((t - window.start) / size)]!.members.push(item);
  }
  return buckets;
}

