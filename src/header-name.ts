/**
 * Whether `name` can be an HTTP header's name: a token of RFC 7230 (§3.2.6; RFC 9110 §5.6.2 has the same), one or
 * more of letters, digits and ``!#$%&'*+-.^_`|~``. It is the rule of Node's `validateHeaderName()` and of undici, so
 * a name this accepts is one neither refuses when the request is sent. Shared by the client's `headers` and
 * `projectHeader` and by register()'s `headers`, so that all three accept the same names.
 *
 * @example
 * isHeaderName('X-Request-Id') // true
 * isHeaderName('X Request') // false: a space is not a token character
 */
export function isHeaderName(name: string): boolean {
  return TOKEN.test(name);
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** What {@link isHeaderName} accepts, in words, for an error message that names the option. */
export const HEADER_NAME_RULE = "letters, digits and !#$%&'*+-.^_`|~ only";
