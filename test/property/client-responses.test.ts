/**
 * Property: whatever a fuzz.server() answers (any status, right or wrong headers, any body, cut short or not, in any TCP
 * pieces), a client call resolves with the parsed body or rejects with the weft error of what happened, its
 * status, method, path and fuzz.server() message right and the API key nowhere in it; retries stay within `maxRetries`,
 * follow `Retry-After` within its bounds and never repeat a call that must not run twice; and the client leaves no
 * socket open once closed, and no unhandled rejection.
 *
 * Through the public API (`new Client()`), against a real server on 127.0.0.1.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Client,
  type RetryEvent,
  WeftAbortError,
  WeftApiError,
  WeftAuthenticationError,
  WeftBadRequestError,
  WeftConflictError,
  WeftConnectionError,
  WeftError,
  WeftNotFoundError,
  WeftParseError,
  WeftPermissionError,
  WeftQuotaExceededError,
  WeftRateLimitError,
  WeftServerError,
  WeftValidationError,
} from 'weft';
import {
  API_KEY,
  type ErrorBodyCase,
  MESSAGE_LIMIT,
  type RetryAfterCase,
  contentType,
  errorBody,
  errorStatus,
  retryAfter,
  splitsOf,
  successBody,
  successStatus,
} from './client-fuzz-arbitraries.js';
import { type Reply, bodiless, errorTexts, leakedFragment, useFuzzServer, wireBody } from './client-fuzz-server.js';
import { runs } from './runs.js';

/** The calls under test: one of each retry policy (README section 4, http.ts's contract). */
const CALLS = {
  /** A read: POST marked idempotent, retried on 408/429/5xx and broken connections. */
  read: { method: 'POST', path: '/call/read', policy: 'idempotent' },
  /** A GET: idempotent by its method. */
  models: { method: 'GET', path: '/models', policy: 'idempotent' },
  /** A create: never sent twice once the fuzz.server() may have run it. */
  start: { method: 'POST', path: '/call/start', policy: 'never' },
  /** A chat completion: retried only after 429 or 503, which say the service did not run it. */
  chat: { method: 'POST', path: '/chat/completions', policy: 'unprocessed' },
} as const;
type CallName = keyof typeof CALLS;

function invoke(client: Client, call: CallName, signal: AbortSignal): Promise<unknown> {
  switch (call) {
    case 'read':
      return client.trace.calls.read({ id: 'c1' }, { signal });
    case 'models':
      return client.inference.models.list({ signal });
    case 'start':
      return client.trace.calls.start({ start: { op_name: 'op', started_at: '2025-01-01T00:00:00Z', attributes: {}, inputs: {} } }, { signal });
    case 'chat':
      return client.inference.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { signal });
  }
}

/** The longest wait a property lets the client make; a longer one (yet within the bounds) is aborted from onRetry. */
const LONGEST_WAIT_MS = 200;
/** The client's backoff in these properties: a retry without `Retry-After` waits at most this. */
const BACKOFF = { initialDelayMs: 1, maxDelayMs: 2 };
/** The longest `Retry-After` honoured (README section 4: a longer one ends the retries). */
const MAX_RETRY_AFTER_MS = 60_000;

interface Attempt {
  reply: Reply;
  serverMessage: string | undefined;
  retryAfter: RetryAfterCase['expected'];
  requestId: string | undefined;
}

const requestId = fc.option(
  fc.oneof(fc.stringMatching(/^[A-Za-z0-9-]{1,40}$/), fc.constant(`req-${API_KEY}`), fc.constant(`${'r'.repeat(195)}${API_KEY}`)),
  { nil: undefined },
);

const KEYED_CONTENT_TYPES = [`text/plain; token=${API_KEY}`, API_KEY];

function headersOf(ct: string | undefined, id: string | undefined, extra: Record<string, string> = {}): Record<string, string> {
  return { ...(ct !== undefined ? { 'content-type': ct } : {}), ...(id !== undefined ? { 'x-request-id': id } : {}), ...extra };
}

const transport = (length: number) =>
  fc.record({
    gzip: fc.boolean().map((b) => b && Math.random() < 0.2),
    contentLength: fc.boolean(),
    earlyHints: fc.boolean().map((b) => b && Math.random() < 0.2),
    splits: splitsOf(length),
    cut: fc.option(fc.nat({ max: length }), { freq: 6, nil: undefined }),
  });

const successAttempt: fc.Arbitrary<Attempt> = fc
  .tuple(successStatus, successBody, fc.oneof(contentType, fc.constantFrom(...KEYED_CONTENT_TYPES)), requestId)
  .chain(([status, body, ct, id]) =>
    transport(body.length).map(({ gzip, contentLength, earlyHints, splits, cut }) => ({
      reply: { status, headers: headersOf(ct, id), body, gzip, contentLength, earlyHints, splits, ...(cut !== undefined ? { cutAt: cut } : {}) },
      serverMessage: undefined,
      retryAfter: undefined,
      requestId: id,
    })),
  );

const errorAttempt: fc.Arbitrary<Attempt> = fc
  .tuple(errorStatus, errorBody, retryAfter, requestId, fc.option(fc.constantFrom('https://example.test/login', `https://example.test/?key=${API_KEY}`)))
  .chain(([status, eb, ra, id, location]: [number, ErrorBodyCase, RetryAfterCase, string | undefined, string | null]) =>
    transport(eb.body.length).map(({ gzip, contentLength, earlyHints, splits, cut }) => ({
      reply: {
        status,
        headers: headersOf(eb.contentType, id, { ...ra.headers, ...(location !== null ? { location } : {}) }),
        body: eb.body,
        gzip,
        contentLength,
        earlyHints,
        splits,
        ...(cut !== undefined ? { cutAt: cut } : {}),
      },
      // A body cut short or gzip-encoded (the client asks for no encoding) shows no message to look for.
      serverMessage: cut === undefined && !gzip && !bodiless(status) ? eb.serverMessage : undefined,
      retryAfter: ra.expected,
      requestId: id,
    })),
  );

type Outcome =
  | { kind: 'value'; value: unknown }
  | { kind: 'parse'; attempt: Attempt }
  | { kind: 'connection'; attempt: Attempt }
  | { kind: 'api'; attempt: Attempt }
  | { kind: 'abort' };

/** What one attempt gives, as the client must read it. */
function outcomeOf(attempt: Attempt): Outcome {
  const { reply } = attempt;
  if (reply.status >= 300) return { kind: 'api', attempt };
  const wire = bodiless(reply.status) ? Buffer.alloc(0) : wireBody(reply);
  if (reply.cutAt !== undefined && reply.cutAt < wire.length) return { kind: 'connection', attempt };
  const text = new TextDecoder().decode(wire);
  if (text.trim() === '') return { kind: 'value', value: undefined };
  try {
    return { kind: 'value', value: JSON.parse(text) };
  } catch {
    return { kind: 'parse', attempt };
  }
}

function retryable(call: CallName, outcome: Outcome): boolean {
  const { policy } = CALLS[call];
  if (outcome.kind === 'api') {
    const status = outcome.attempt.reply.status;
    if (policy === 'idempotent') return [408, 429, 500, 502, 503, 504].includes(status);
    if (policy === 'unprocessed') return status === 429 || status === 503;
    return false;
  }
  return outcome.kind === 'connection' && policy === 'idempotent';
}

function delayOf(expected: RetryAfterCase['expected']): number | undefined {
  return typeof expected === 'object' ? expected.around : expected;
}

/** The oracle: how many requests the fuzz.server() sees, and how the call ends. */
function expectedRun(call: CallName, maxRetries: number, attempts: Attempt[]): { requests: number; outcome: Outcome } {
  for (let i = 0; ; i++) {
    const attempt = attempts[Math.min(i, attempts.length - 1)] as Attempt;
    const outcome = outcomeOf(attempt);
    if (outcome.kind === 'value' || !retryable(call, outcome) || i >= maxRetries) return { requests: i + 1, outcome };
    const delay = outcome.kind === 'api' ? delayOf(attempt.retryAfter) : undefined;
    if (delay !== undefined && delay > MAX_RETRY_AFTER_MS) return { requests: i + 1, outcome };
    if (delay !== undefined && delay > LONGEST_WAIT_MS) return { requests: i + 1, outcome: { kind: 'abort' } };
  }
}

const API_CLASSES: Record<number, typeof WeftApiError> = {
  400: WeftBadRequestError,
  401: WeftAuthenticationError,
  402: WeftQuotaExceededError,
  403: WeftPermissionError,
  404: WeftNotFoundError,
  409: WeftConflictError,
  422: WeftValidationError,
  429: WeftRateLimitError,
};
const apiClassOf = (status: number) => API_CLASSES[status] ?? (status >= 500 ? WeftServerError : WeftApiError);

const fuzz = useFuzzServer();

function makeClient(maxRetries: number, onRetry: (event: RetryEvent) => void): Client {
  return fuzz.client({
    maxRetries,
    timeoutMs: 5_000,
    backoff: BACKOFF,
    onRetry,
  });
}

/** The checks of one call's end against the oracle's. */
function checkOutcome(call: CallName, settled: { value?: unknown; error?: unknown }, expected: Outcome): void {
  const { method, path } = CALLS[call];
  if (expected.kind === 'value') {
    expect(settled.error).toBeUndefined();
    expect(settled.value).toEqual(expected.value);
    return;
  }
  const error = settled.error;
  expect(error, `resolved with ${JSON.stringify(settled.value)?.slice(0, 200)}`).toBeInstanceOf(WeftError);
  expect(error).toMatchObject({ method, path });
  const leak = leakedFragment(errorTexts(error), API_KEY);
  expect(leak, `the error shows "${leak}" of the API key: ${String((error as Error).message).slice(0, 300)}`).toBeUndefined();
  if (expected.kind === 'abort') {
    expect(error).toBeInstanceOf(WeftAbortError);
    return;
  }
  const { reply, serverMessage, requestId: id } = expected.attempt;
  if (expected.kind === 'connection') {
    expect(error).toBeInstanceOf(WeftConnectionError);
    return;
  }
  if (expected.kind === 'parse') {
    expect(error).toBeInstanceOf(WeftParseError);
    const ct = reply.headers['content-type'];
    // The content type as sent, the key replaced (it is the server's text, as a request id is).
    const shown = (Array.isArray(ct) ? ct[0] : ct)?.split(API_KEY).join('***');
    expect(error).toMatchObject({ status: reply.status, contentType: shown });
    return;
  }
  const api = error as WeftApiError;
  expect(api.constructor).toBe(apiClassOf(reply.status));
  expect(api.status).toBe(reply.status);
  if (serverMessage !== undefined && !serverMessage.includes(API_KEY)) {
    const shown = serverMessage.length > MESSAGE_LIMIT ? serverMessage.slice(0, MESSAGE_LIMIT) : serverMessage;
    expect(api.message).toContain(shown);
    expect(api.serverMessage.startsWith(shown)).toBe(true);
  }
  if (id !== undefined && !id.includes(API_KEY)) {
    expect(api.requestId).toBe(id);
    expect(api.message).toContain(`(request id ${id})`);
  }
}

describe('a client against an adversarial server', () => {
  it('resolves with the parsed body or rejects with the right weft error; retries as documented; leaks neither key nor socket', async () => {
    const attempt = fc.oneof({ weight: 2, arbitrary: successAttempt }, { weight: 3, arbitrary: errorAttempt });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<CallName>('read', 'models', 'start', 'chat'),
        fc.integer({ min: 0, max: 3 }),
        fc.array(attempt, { minLength: 1, maxLength: 4 }),
        async (call, maxRetries, attempts) => {
          fuzz.server().script(attempts.map((a) => a.reply));
          const controller = new AbortController();
          const retries: RetryEvent[] = [];
          const client = makeClient(maxRetries, (event) => {
            retries.push(event);
            if (event.delayMs > LONGEST_WAIT_MS) controller.abort(new Error('the property does not wait that long'));
          });
          const settled: { value?: unknown; error?: unknown } = {};
          try {
            settled.value = await invoke(client, call, controller.signal);
          } catch (error) {
            settled.error = error;
          }
          await client.close();
          await fuzz.server().allSocketsClosed();

          const expected = expectedRun(call, maxRetries, attempts);
          expect(fuzz.server().requests.length).toBe(expected.requests);
          expect(fuzz.server().requests.length).toBeLessThanOrEqual(maxRetries + 1);
          for (const request of fuzz.server().requests) expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
          checkOutcome(call, settled, expected.outcome);

          // Each retry waited what the fuzz.server() asked (within the bounds), or the client's short backoff.
          // A wait too long for the property was announced to onRetry before the property aborted it.
          expect(retries.length).toBe(expected.requests - (expected.outcome.kind === 'abort' ? 0 : 1));
          retries.forEach((event, i) => {
            expect(event.attempt).toBe(i + 2);
            expect(leakedFragment(errorTexts(event.error), API_KEY)).toBeUndefined();
            const asked = (attempts[Math.min(i, attempts.length - 1)] as Attempt).retryAfter;
            const outcome = outcomeOf(attempts[Math.min(i, attempts.length - 1)] as Attempt);
            if (outcome.kind !== 'api' || asked === undefined) {
              expect(event.delayMs).toBeGreaterThanOrEqual(0);
              expect(event.delayMs).toBeLessThanOrEqual(BACKOFF.maxDelayMs);
            } else if (typeof asked === 'number') {
              expect(event.delayMs).toBe(asked);
            } else {
              expect(Math.abs(event.delayMs - asked.around)).toBeLessThanOrEqual(2_000);
            }
            expect(event.delayMs).toBeLessThanOrEqual(MAX_RETRY_AFTER_MS);
          });
          expect(fuzz.unhandled).toEqual([]);
        },
      ),
      runs(600),
    );
  });
});

