// The trace service's datetimes: instants, returned in UTC with microseconds (`2026-01-01T00:00:00.500000Z`),
// whatever zone or precision they were sent with. Microseconds since the epoch are kept as bigint: a double
// loses them after the year 2255.

// ISO 8601 as clients send it: a date, optionally a time (seconds and fraction optional), optionally a zone.
const ISO_DATETIME = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?(?:(Z)|([+-]\d{2}):?(\d{2})?)?$/i;

/**
 * The instant an ISO 8601 date-time names, in microseconds since the epoch; a date-time without a zone is
 * UTC, as the service stores it. Undefined for anything else, a date-time string in another format included.
 *
 * @example
 * timestampMicros('2026-01-01T01:00:00+01:00') === timestampMicros('2026-01-01T00:00:00.000000Z'); // true
 */
export function timestampMicros(value: unknown): bigint | undefined {
  if (typeof value !== 'string') return undefined;
  const m = ISO_DATETIME.exec(value.trim());
  if (!m) return undefined;
  const [, date, hoursMinutes = '00:00', seconds = '00', fraction = '', , zoneHours, zoneMinutes = '00'] = m;
  const zone = zoneHours === undefined ? 'Z' : `${zoneHours}:${zoneMinutes}`;
  const ms = Date.parse(`${date}T${hoursMinutes}:${seconds}${zone}`);
  if (Number.isNaN(ms)) return undefined;
  return BigInt(ms) * 1000n + BigInt(fraction.padEnd(6, '0').slice(0, 6));
}

/** Microseconds since the epoch as the service writes a datetime: UTC, six fraction digits, `Z`. */
export function isoFromMicros(micros: bigint): string {
  const seconds = micros / 1_000_000n - (micros % 1_000_000n < 0n ? 1n : 0n);
  const fraction = (micros - seconds * 1_000_000n).toString().padStart(6, '0');
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}

/**
 * A datetime a client sent (`started_at`, `ended_at`), as the service stores and returns it: UTC with
 * microseconds. A value the validator let through in another format is read by `Date.parse` (to the
 * millisecond); one that names no year from 0000 to 9999 is kept as sent.
 */
export function normalizeTimestamp(value: string): string {
  let micros = timestampMicros(value);
  if (micros === undefined) {
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) return value;
    micros = BigInt(ms) * 1000n;
  }
  const year = new Date(Number(micros / 1000n)).getUTCFullYear();
  return year >= 0 && year <= 9999 ? isoFromMicros(micros) : value;
}
