/**
 * What a server's `Retry-After` asks, read the same way by the client's HTTP core and by the OTLP exporter
 * (a trace service answering 429 or 503 to either).
 */

/** An HTTP date (RFC 9110 §5.6.7): IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, or the obsolete RFC 850 and asctime forms. */
const HTTP_DATE =
  /^\s*(?:[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT|[A-Za-z]+, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})\s*$/;

/**
 * Reads `retry-after-ms` (milliseconds) or `Retry-After` (seconds, or an HTTP date) into milliseconds;
 * undefined when absent or unreadable.
 */
export function parseRetryAfter(
  headers: Record<string, string | string[] | undefined>,
  now: () => number = Date.now,
): number | undefined {
  const ms = firstValue(headers['retry-after-ms']);
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.ceil(Number(ms));
  const value = firstValue(headers['retry-after']);
  if (value === undefined) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.ceil(Number(value) * 1000);
  // Only an HTTP date: Date.parse reads much else as a date (`-5`, `abc 1` as 2001), which would retry at once.
  if (!HTTP_DATE.test(value)) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now());
}

/** A header's value, the first when it came more than once. */
function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
