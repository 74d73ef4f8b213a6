import { USER_AGENT, VERSION } from '../../version.js';

/** weft's version (one source: src/version.ts), sent in the `User-Agent` header as `weft/<version>`. */
export const WEFT_VERSION = VERSION;

/** The default `User-Agent` of every request weft's client sends. */
export const DEFAULT_USER_AGENT = USER_AGENT;
