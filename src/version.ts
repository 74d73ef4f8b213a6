/** weft's version, sent in `User-Agent` headers. A test keeps it equal to package.json's. */
export const VERSION = '0.1.0';

/** The `User-Agent` of every request weft sends, the client's and the exporter's. */
export const USER_AGENT = `weft/${VERSION}`;
