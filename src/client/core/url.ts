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

/** Percent-encodes one path segment; `.` and `..` are encoded too, so they cannot climb the path. */
export function encodeSegment(value: string | number): string {
  const text = String(value);
  if (text === '') throw new TypeError('weft: a path parameter (an id or name in the URL) must not be empty.');
  // URL parsing resolves `.` and `..` even when percent-encoded, so such an id would address another resource.
  if (text === '.' || text === '..') throw new TypeError(`weft: a path parameter (an id or name in the URL) cannot be "${text}".`);
  return encodeURIComponent(text);
}
