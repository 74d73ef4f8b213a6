/** Building request URLs: the service's base URL (path prefix kept), an encoded path, and a query string. */
import { joinUrl } from '../../config/index.js';

/** A value of a query parameter. Arrays repeat the key (`?id=a&id=b`); undefined and null leave it out. */
export type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number | boolean>;

/** Query parameters of a request. */
export type QueryParams = Record<string, QueryValue>;

/** Joins the base URL (which may carry a prefix such as `/traces`) with a path and a query string. */
export function buildUrl(baseUrl: string, path: string, query?: QueryParams): string {
  const url = joinUrl(baseUrl, path);
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) search.append(key, String(item));
    else search.append(key, String(value));
  }
  const qs = search.toString();
  return qs ? `${url}?${qs}` : url;
}

/**
 * Tagged template that percent-encodes every interpolated value as one path segment, so ids with `/`,
 * `?` or `#` cannot change the route. An empty value is a caller bug and throws a TypeError naming it.
 *
 * @example
 * encodePath`/objs/${objectId}/versions/${digest}/tags` // '/objs/my%2Fobj/versions/abc/tags'
 */
export function encodePath(strings: TemplateStringsArray, ...values: ReadonlyArray<string | number>): string {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += encodeSegment(value) + (strings[i + 1] ?? '');
  });
  return out;
}

/**
 * Percent-encodes one path segment: ids may look like paths (`OpenPipe/Qwen3-14B-Instruct`), so every reserved
 * character is encoded and the id stays one segment. Empty ids, `.` and `..` are refused, naming `name` when given.
 */
export function encodeSegment(value: string | number, name?: string): string {
  const what = name ? `\`${name}\`` : 'a path parameter (an id or name in the URL)';
  if ((typeof value !== 'string' && typeof value !== 'number') || value === '') {
    throw new TypeError(`weft: ${what} must be a non-empty string, got ${JSON.stringify(value)}.`);
  }
  const text = String(value);
  // URL parsing resolves `.` and `..` even when percent-encoded, so such an id would address another resource.
  if (text === '.' || text === '..') throw new TypeError(`weft: ${what} cannot be "${text}": a URL would read it as a relative path.`);
  return encodeURIComponent(text);
}
