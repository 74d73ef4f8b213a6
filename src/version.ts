/** weft's version, sent in `User-Agent` headers. A test keeps it equal to package.json's. */
export const VERSION = '0.1.0';
