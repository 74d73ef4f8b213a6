/**
 * Generators of the client's property tests: what an adversarial server answers (statuses, headers, bodies,
 * `Retry-After`s), and the oracle of what the client must make of it.
 */
import fc from 'fast-check';

/** A key no server text contains by chance, so that any fragment of it in an error is a leak. */
export const API_KEY = 'sk-weftfuzz-SECRET-123';
/** A shown run of this many characters of the key counts as a leak (as a cut through the key would leave). */
export const API_KEY_FRAGMENT_LENGTH = 8;

/** The service's message limit (error-body.ts): a longer message is cut there. */
export const MESSAGE_LIMIT = 1000;

/** Short message text: printable ASCII and some multi-byte characters, never blank. */
export const messageText = fc
  .string({ minLength: 1, maxLength: 60, unit: fc.oneof(fc.constantFrom(...'abcXYZ019 -_:./"\\\'{}[]<>&é✓€😀\t'), fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c))) })
  .filter((s) => s.trim() !== '' && !s.includes('sk-weft'));

/** A message that echoes the API key somewhere, possibly across the 1000-character cut. */
export const keyEchoMessage = fc
  .tuple(fc.nat({ max: 1_100 }), fc.nat({ max: 40 }), fc.constantFrom('', 'Bearer ', 'authorization: Bearer '))
  .map(([before, after, lead]) => `${'p'.repeat(before)}${lead}${API_KEY}${'s'.repeat(after)}`);

/** A statuses mix: every class, the mapped ones often. */
export const errorStatus = fc.oneof(
  fc.constantFrom(400, 401, 402, 403, 404, 405, 408, 409, 410, 413, 418, 422, 429, 451),
  fc.constantFrom(500, 501, 502, 503, 504, 507, 599),
  fc.integer({ min: 400, max: 599 }),
  fc.constantFrom(300, 301, 302, 303, 304, 307, 308),
);
export const successStatus = fc.oneof(fc.constantFrom(200, 200, 200, 201, 202, 204), fc.integer({ min: 200, max: 299 }));

/** What a content type may look like: right, wrong, missing (undefined), with parameters. */
export const contentType = fc.option(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'application/problem+json',
    'text/plain',
    'text/plain; charset=iso-8859-1',
    'text/html; charset=utf-8',
    'application/octet-stream',
    'garbage',
    'application/jsonl',
    'text/event-stream',
  ),
  { nil: undefined },
);

/** A `Retry-After` (or `retry-after-ms`) header, with the delay the client must read from it. */
export interface RetryAfterCase {
  headers: Record<string, string>;
  /**
   * `undefined`: none readable (backoff). A number: that many ms. `{ around }`: an HTTP date that many ms ahead,
   * read to within the date's one-second precision.
   */
  expected: number | undefined | { around: number };
}

const httpDate = (offsetMs: number) => new Date(Date.now() + offsetMs).toUTCString();

export const retryAfter: fc.Arbitrary<RetryAfterCase> = fc.oneof(
  fc.constant<RetryAfterCase>({ headers: {}, expected: undefined }),
  fc.constantFrom('0', '0.001', '0.002', ' 0 ', '0.0004').map<RetryAfterCase>((v) => ({
    headers: { 'retry-after': v },
    expected: Math.ceil(Number(v) * 1000),
  })),
  // Within the bounds but long: the property's onRetry aborts the call rather than wait.
  fc.constantFrom('1', '30', '60').map<RetryAfterCase>((v) => ({ headers: { 'retry-after': v }, expected: Number(v) * 1000 })),
  // Over the bounds: the retries end there.
  fc.constantFrom('61', '3600', '86400', '99999999999999999999').map<RetryAfterCase>((v) => ({
    headers: { 'retry-after': v },
    expected: Number(v) * 1000,
  })),
  fc.constantFrom('-1', 'soon', '1e3', '', 'Infinity', 'NaN', '0x10', '5 seconds', '-0.5').map<RetryAfterCase>((v) => ({
    headers: { 'retry-after': v },
    expected: undefined,
  })),
  fc.constantFrom(-86_400_000, -1_000_000, 30_000, 3_600_000).map<RetryAfterCase>((offset) => ({
    headers: { 'retry-after': httpDate(offset) },
    expected: offset < 0 ? 0 : { around: offset },
  })),
  fc.constantFrom('0', '1', '2.5', '70000').map<RetryAfterCase>((v) => ({
    headers: { 'retry-after-ms': v },
    expected: Math.ceil(Number(v)),
  })),
);

/** The body of an error answer, and the text of the server's message the client's error must show (if any). */
export interface ErrorBodyCase {
  body: Buffer;
  contentType: string | undefined;
  /** The server's message as sent (before the client's cut to {@link MESSAGE_LIMIT}); none for bodies without one. */
  serverMessage: string | undefined;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const jsonType = fc.constantFrom('application/json', 'application/json; charset=utf-8', undefined);

/** Messages, often long enough to be cut, sometimes echoing the key. */
const anyMessage = fc.oneof(
  { weight: 4, arbitrary: messageText },
  { weight: 1, arbitrary: fc.nat({ max: 1_500 }).map((n) => `long ${'m'.repeat(n)} end`) },
  { weight: 2, arbitrary: keyEchoMessage },
);

export const errorBody: fc.Arbitrary<ErrorBodyCase> = fc.oneof(
  fc.tuple(anyMessage, jsonType).map(([m, ct]) => ({ body: json({ detail: m }), contentType: ct, serverMessage: m })),
  fc.tuple(anyMessage, jsonType, fc.option(fc.oneof(messageText, keyEchoMessage)), fc.option(fc.oneof(messageText, keyEchoMessage, fc.integer())))
    .map(([m, ct, type, code]) => ({
      body: json({ error: { message: m, ...(type !== null ? { type } : {}), ...(code !== null ? { code } : {}) } }),
      contentType: ct,
      serverMessage: m,
    })),
  fc.tuple(anyMessage, jsonType).map(([m, ct]) => ({ body: json({ error: m }), contentType: ct, serverMessage: m })),
  fc.tuple(anyMessage, jsonType).map(([m, ct]) => ({ body: json({ message: m, extra: 1 }), contentType: ct, serverMessage: m })),
  fc
    .tuple(fc.array(fc.tuple(fc.array(fc.oneof(fc.constantFrom('body', 'start', 'op_name'), fc.nat({ max: 3 })), { maxLength: 3 }), messageText), { minLength: 1, maxLength: 7 }))
    .map(([issues]) => ({
      body: json({ detail: issues.map(([loc, msg]) => ({ loc, msg, type: 'value_error' })) }),
      contentType: 'application/json',
      serverMessage: undefined,
    })),
  fc.tuple(anyMessage, fc.constantFrom('text/plain', 'text/plain; charset=utf-8', undefined)).map(([m, ct]) => ({
    body: Buffer.from(`  ${m}\n`),
    contentType: ct,
    serverMessage: m.trim(),
  })),
  fc.tuple(messageText).map(([m]) => ({
    body: Buffer.from(`<!DOCTYPE html><html><head><title>Error</title></head><body><h1>${m}</h1></body></html>`),
    contentType: 'text/html; charset=utf-8',
    serverMessage: undefined,
  })),
  fc.constant<ErrorBodyCase>({ body: Buffer.alloc(0), contentType: undefined, serverMessage: undefined }),
  fc.constant<ErrorBodyCase>({ body: Buffer.from('{"detail": "unterminated'), contentType: 'application/json', serverMessage: undefined }),
  fc.tuple(fc.jsonValue({ maxDepth: 3 }), contentType).map(([v, ct]) => ({ body: json(v), contentType: ct, serverMessage: undefined })),
);

/** The body of a 2xx answer: JSON of some shape, or not JSON at all. */
export const successBody = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v))) },
  { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
  { weight: 1, arbitrary: fc.constantFrom(' \n ', '{"a":', '<html><body>Login</body></html>', 'OK', 'null', '[1,2').map((s) => Buffer.from(s)) },
  { weight: 1, arbitrary: fc.constant(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d])) },
  { weight: 1, arbitrary: fc.constantFrom(70_000, 300_000).map((n) => big(Buffer.from(JSON.stringify({ data: 'x'.repeat(n), n })))) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)) },
);

/** A big buffer that a counterexample prints by its size. */
function big(buffer: Buffer): Buffer {
  return Object.assign(buffer, { [fc.toStringMethod]: () => `Buffer(${buffer.length} bytes)` });
}

/** Split points of a body of `length` bytes. */
export const splitsOf = (length: number) => fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, length - 1) }), { maxLength: Math.min(8, length) });
