/**
 * Property: a fuzz.server() that echoes the API key back (a proxy or a debugging endpoint that quotes the request) never
 * gets it, nor a part of it, into a client error: not its message, stack, fields, JSON or cause, wherever the key
 * stands in the answer and wherever the client (or the connection) cuts that answer short. README, "Secrets stay
 * secret"; http.ts: "the API key is scrubbed from anything a fuzz.server() echoes".
 *
 * Through the public API (`new Client()`), against a real server on 127.0.0.1.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WeftApiError, WeftError, WeftParseError } from 'weft';
import { API_KEY } from './client-fuzz-arbitraries.js';
import { type Reply, errorTexts, leakedFragment, useFuzzServer } from './client-fuzz-server.js';
import { runs } from './runs.js';

const fuzz = useFuzzServer();

/** The error of one call answered by `reply` (no retries), the client closed and its sockets with it. */
async function errorOf(reply: Reply, call: 'read' | 'chatStream' = 'read'): Promise<unknown> {
  fuzz.server().script([reply]);
  const client = fuzz.client({ maxRetries: 0 });
  const error = await (call === 'read'
    ? client.trace.calls.read({ id: 'c1' })
    : client.inference.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true })
  ).then(
    () => undefined,
    (e: unknown) => e,
  );
  await client.close();
  await fuzz.server().allSocketsClosed();
  return error;
}

function expectNoLeak(error: unknown): void {
  expect(error).toBeInstanceOf(WeftError);
  const leak = leakedFragment(errorTexts(error), API_KEY);
  expect(leak, `the error shows "${leak}" of the API key: ${String((error as Error).message).slice(0, 300)}`).toBeUndefined();
}

/** Text around an echoed key: `before` characters, the key (maybe as a header would quote it), `after` characters. */
const echo = (before: number, lead: string, after: number) => `${'p'.repeat(before)}${lead}${API_KEY}${'s'.repeat(after)}`;
const lead = fc.constantFrom('', 'Bearer ', 'authorization: Bearer ');

describe('an echoed API key stays out of client errors', () => {
  it("in an OpenAI-style error's type and code", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 30 }), lead, fc.nat({ max: 30 }), fc.constantFrom('type', 'code'), async (before, how, after, field) => {
        const body = { error: { message: 'denied', [field]: echo(before, how, after) } };
        const error = await errorOf({ status: 403, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) });
        expect(error).toBeInstanceOf(WeftApiError);
        expectNoLeak(error);
      }),
      runs(30),
    );
  });

  it('in a message long enough to be cut, the cut falling anywhere in or around the key', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 960, max: 1_010 }),
        lead,
        fc.nat({ max: 50 }),
        fc.constantFrom('detail', 'error.message', 'text', 'object detail'),
        async (before, how, after, shape) => {
          const message = echo(before, how, after);
          const body =
            shape === 'detail'
              ? JSON.stringify({ detail: message })
              : shape === 'error.message'
                ? JSON.stringify({ error: { message } })
                : shape === 'object detail'
                  ? JSON.stringify({ detail: { reason: message } })
                  : message;
          const error = await errorOf({ status: 500, headers: { 'content-type': shape === 'text' ? 'text/plain' : 'application/json' }, body: Buffer.from(body) });
          expectNoLeak(error);
        },
      ),
      runs(60),
    );
  });

  it('in an error body cut short, by the connection or by the 64 KiB the client reads of it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          // The connection breaks at a byte of the echoed key.
          fc.record({ pad: fc.nat({ max: 40 }), cutInKey: fc.integer({ min: 1, max: API_KEY.length - 1 }), limit: fc.constant(false) }),
          // The client stops reading at 64 KiB, within the key, whatever the TCP pieces.
          fc.record({ pad: fc.integer({ min: 65_536 - API_KEY.length + 1, max: 65_535 }), cutInKey: fc.constant(-1), limit: fc.constant(true) }),
        ),
        lead,
        async ({ pad, cutInKey, limit }, how) => {
          const text = echo(pad, how, 100_000);
          const keyAt = pad + how.length;
          const reply: Reply = {
            status: 502,
            headers: { 'content-type': 'text/plain' },
            body: Buffer.from(text),
            // The fuzz.server() stops at 64 KiB (until the client hangs up), so that the client's cut falls exactly there.
            ...(limit ? { pauseAt: 65_536, resume: new Promise<void>(() => {}) } : {}),
            ...(limit ? {} : { cutAt: keyAt + cutInKey }),
          };
          expectNoLeak(await errorOf(reply));
        },
      ),
      runs(40),
    );
  });

  it("in a 2xx answer's content type, quoted by the parse error", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(`text/plain; token=${API_KEY}`, API_KEY, `text/html; k=${API_KEY}`, `${API_KEY}; charset=utf-8`),
        fc.constantFrom<'read' | 'chatStream'>('read', 'chatStream'),
        async (contentType, call) => {
          // The chat stream reads an HTML page as not an event stream: its parse error quotes the content type too.
          const type = call === 'chatStream' ? `text/html; k=${contentType}` : contentType;
          const error = await errorOf({ status: 200, headers: { 'content-type': type }, body: Buffer.from('<html>not json</html>') }, call);
          expect(error).toBeInstanceOf(WeftParseError);
          expectNoLeak(error);
        },
      ),
      runs(16),
    );
  });
});
