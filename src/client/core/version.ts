/**
 * weft's version, sent in the `User-Agent` header as `weft/<version>`.
 * Kept as a constant (not read from package.json at run time) so the built ESM and CJS bundles need no
 * file access; a test checks it against package.json so the two cannot drift apart.
 */
export const WEFT_VERSION = '0.1.0';

/** The default `User-Agent` of every request weft's client sends. */
export const DEFAULT_USER_AGENT = `weft/${WEFT_VERSION}`;
