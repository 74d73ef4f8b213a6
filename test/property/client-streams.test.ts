/**
 * Property: a streamed answer reads the same whichever way its bytes are split into TCP writes (inside a line, a
 * CRLF, a multi-byte UTF-8 character): the chat completion stream (SSE) yields the same chunks and ends the same way,
 * and a JSONL listing the same items, as a reference reading of the whole text says; an answer cut short, malformed
 * or without its end is a weft error, the same one whichever the split. No socket stays open once the client is
 * closed, and nothing is left unhandled.
 *
 * Through the public API (`new Client()`), against a real server on 127.0.0.1.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Client, STREAM_INCOMPLETE, WeftConnectionError, WeftError, WeftParseError, WeftRateLimitError } from 'weft';
import { settlesWithin } from '../helpers/deadline.js';
import { API_KEY } from './client-fuzz-arbitraries.js';
import { errorTexts, leakedFragment, useFuzzServer } from './client-fuzz-server.js';
import { runs } from './runs.js';

const fuzz = useFuzzServer();

function makeClient(): Client {
  return fuzz.client({
    maxRetries: 0,
    timeoutMs: 5_000,
  });
}

/** Text with the characters that make splits interesting: multi-byte (2, 3, 4 bytes), CR, LF, `data:` look-alikes. */
const content = fc.string({
  maxLength: 24,
  unit: fc.constantFrom('a', 'Z', ' ', 'é', '✓', '€', '😀', '中', '\n', '\r', ':', 'data: ', '[DONE]', '"', '\\', '\u2028'),
});

/** Where to split a body, whatever its length: nowhere, at every byte, or at a few points (in ten-thousandths of it). */
type SplitSpec = 'none' | 'every' | number[];
const splitSpec: fc.Arbitrary<SplitSpec> = fc.oneof(
  fc.constant<SplitSpec>('none'),
  fc.constant<SplitSpec>('every'),
  fc.uniqueArray(fc.integer({ min: 1, max: 9_999 }), { minLength: 1, maxLength: 12 }),
);
function splitsOf(spec: SplitSpec, length: number): number[] {
  if (spec === 'none') return [];
  if (spec === 'every') return Array.from({ length }, (_, i) => i + 1);
  return spec.map((f) => Math.floor((f * length) / 10_000));
}

/** What reading a stream gave: the items, then how it ended. */
interface Reading {
  items: unknown[];
  error: { name: string; code?: string | undefined; status?: number | undefined } | undefined;
}

function describeError(error: unknown): Reading['error'] {
  if (error === undefined) return undefined;
  expect(error, `a bare ${String(error)}`).toBeInstanceOf(WeftError);
  const leak = leakedFragment(errorTexts(error), API_KEY);
  expect(leak, `the error shows "${leak}" of the API key`).toBeUndefined();
  const e = error as WeftError & { code?: string; status?: number };
  return { name: e.name, code: e instanceof WeftConnectionError ? (e.code === STREAM_INCOMPLETE ? e.code : 'broken') : undefined, status: e.status };
}

// --- SSE ---

const chatChunk = (text: string, i: number) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1_700_000_000 + i,
  model: 'm',
  choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
});
const usageChunk = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } };

type SsePart =
  | { kind: 'chunk'; text: string; multiline: boolean; id: string | null; named: boolean }
  | { kind: 'comment'; text: string }
  | { kind: 'field'; line: string }
  | { kind: 'empty' };

const ssePart: fc.Arbitrary<SsePart> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('chunk' as const), text: content, multiline: fc.boolean(), id: fc.option(fc.stringMatching(/^[a-z0-9]{1,6}$/)), named: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('comment' as const), text: fc.constantFrom('', ' keep-alive', ' ✓ ping') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('field' as const), line: fc.constantFrom('retry: 1000', 'retry: soon', 'foo: bar', 'data', 'id') }) },
  { weight: 1, arbitrary: fc.constant<SsePart>({ kind: 'empty' }) },
);

type SseEnd = 'done' | 'usage-done' | 'no-done' | 'done-unterminated' | 'error-event' | 'bad-json' | 'cut';

/** The stream's text, and what a correct reader yields from it and how it ends (for a `cut`, the reading of the bytes before it). */
function sseStream(parts: SsePart[], end: SseEnd, eol: string): { text: string; items: unknown[]; error: Reading['error'] } {
  const lines: string[] = [];
  const items: unknown[] = [];
  const event = (...eventLines: string[]) => lines.push(...eventLines.map((l) => l + eol), eol);
  parts.forEach((part, i) => {
    if (part.kind === 'chunk') {
      const value = chatChunk(part.text, i);
      const json = part.multiline ? JSON.stringify(value, null, 1) : JSON.stringify(value);
      // A data line whose value starts with a space loses one, as the format says: JSON does not mind.
      const data = json.split('\n').map((l) => `data: ${l}`);
      event(...(part.named ? ['event: message'] : []), ...(part.id !== null ? [`id: ${part.id}`] : []), ...data);
      items.push(value);
    } else if (part.kind === 'comment') {
      event(`:${part.text}`);
    } else if (part.kind === 'field') {
      event(part.line);
    } else {
      event('data:');
    }
  });
  let error: Reading['error'];
  switch (end) {
    case 'usage-done':
      event(`data: ${JSON.stringify(usageChunk)}`);
      items.push(usageChunk);
      event('data: [DONE]');
      break;
    case 'done':
    case 'cut':
      event('data: [DONE]');
      break;
    case 'no-done':
      error = { name: 'WeftConnectionError', code: STREAM_INCOMPLETE, status: undefined };
      break;
    case 'done-unterminated':
      // An event the bytes end in the middle of never arrived whole: it is dropped, as the format says.
      lines.push(`data: [DONE]${eol}`);
      error = { name: 'WeftConnectionError', code: STREAM_INCOMPLETE, status: undefined };
      break;
    case 'error-event':
      event(`data: ${JSON.stringify({ error: { message: `rate limited ${API_KEY}`, code: 429 } })}`);
      error = { name: WeftRateLimitError.name, code: undefined, status: 429 };
      break;
    case 'bad-json':
      event('data: {"id": "chatcmpl-1", "choices": [');
      error = { name: WeftParseError.name, code: undefined, status: undefined };
      break;
  }
  return { text: lines.join(''), items, error };
}

async function readChat(client: Client): Promise<Reading> {
  const items: unknown[] = [];
  try {
    const stream = await client.inference.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
    for await (const chunk of stream) items.push(chunk);
  } catch (error) {
    return { items, error: describeError(error) };
  }
  return { items, error: undefined };
}

// --- JSONL ---

type JsonlLine = { kind: 'value'; value: unknown } | { kind: 'blank'; text: string } | { kind: 'bad'; text: string };

const jsonlLine: fc.Arbitrary<JsonlLine> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ id: content, n: fc.integer(), nested: fc.jsonValue({ maxDepth: 2 }) }).map((value) => ({ kind: 'value' as const, value })) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\t', '\r').map((text) => ({ kind: 'blank' as const, text })) },
  { weight: 1, arbitrary: fc.constantFrom('{"id": "x"', 'not json', '{"a":1}{"b":2}', '\u00e9\u00e9').map((text) => ({ kind: 'bad' as const, text })) },
);

/** The listing's text, and the reference reading of it: one item per JSON line, blank lines skipped, the first bad line an error. */
function jsonlStream(lines: JsonlLine[], eol: string, finalEol: boolean): { text: string; items: unknown[]; error: Reading['error'] } {
  const items: unknown[] = [];
  let error: Reading['error'];
  const texts = lines.map((line) => {
    if (line.kind === 'value') {
      // As JSON.parse reads it back (-0 becomes 0, and so on): what the service meant.
      if (error === undefined) items.push(JSON.parse(JSON.stringify(line.value)));
      return JSON.stringify(line.value);
    }
    if (line.kind === 'bad' && error === undefined) error = { name: WeftParseError.name, code: undefined, status: undefined };
    return line.text;
  });
  return { text: texts.join(eol) + (finalEol ? eol : ''), items, error };
}

async function readJsonl(client: Client): Promise<Reading> {
  const items: unknown[] = [];
  try {
    for await (const call of client.trace.calls.streamQuery({ limit: 10 })) items.push(call);
  } catch (error) {
    return { items, error: describeError(error) };
  }
  return { items, error: undefined };
}

/** Serves `text` split at `cuts` (and destroyed at `cutAt`), reads it with `read`, closes the client, checks the sockets. */
async function serveAndRead(
  text: string,
  contentType: string,
  cuts: number[],
  cutAt: number | undefined,
  read: (client: Client) => Promise<Reading>,
): Promise<Reading> {
  fuzz.server().script([
    {
      status: 200,
      headers: { 'content-type': contentType, 'x-request-id': 'req-1' },
      body: Buffer.from(text, 'utf8'),
      splits: cuts,
      ...(cutAt !== undefined ? { cutAt } : {}),
    },
  ]);
  const client = makeClient();
  const reading = await read(client);
  await client.close();
  await fuzz.server().allSocketsClosed();
  expect(fuzz.server().requests.length).toBe(1);
  return reading;
}

describe('streams read the same whichever the TCP split', () => {
  it('a chat completion stream (SSE): same chunks, same end, as the reference reading says', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(ssePart, { maxLength: 8 }),
        fc.constantFrom<SseEnd>('done', 'usage-done', 'no-done', 'done-unterminated', 'error-event', 'bad-json', 'cut'),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.constantFrom('text/event-stream', 'text/event-stream; charset=utf-8', 'text/plain'),
        splitSpec,
        splitSpec,
        fc.integer({ min: 0, max: 9_999 }),
        async (parts, end, eol, contentType, specA, specB, cutFraction) => {
          const expected = sseStream(parts, end, eol);
          const length = Buffer.byteLength(expected.text);
          const splitA = splitsOf(specA, length);
          const splitB = splitsOf(specB, length);
          // A cut anywhere before the end: the reading of the bytes before it, whichever their split.
          const cutAt = end === 'cut' ? Math.floor((cutFraction * length) / 10_000) : undefined;
          const a = await serveAndRead(expected.text, contentType, splitA, cutAt, readChat);
          const b = await serveAndRead(expected.text, contentType, splitB, cutAt, readChat);
          expect(a).toEqual(b);
          if (end === 'cut') {
            // What was read is a prefix of the whole reading, and a stream cut before its [DONE] is an error.
            expect(expected.items.slice(0, a.items.length)).toEqual(a.items);
            if (a.error !== undefined) expect(a.error.name).toBe('WeftConnectionError');
          } else {
            expect(a).toEqual({ items: expected.items, error: expected.error });
          }
          expect(fuzz.unhandled).toEqual([]);
        },
      ),
      runs(120),
    );
  });

  it('a chat completion stream yields each chunk as soon as its event has arrived, before any more bytes come', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ kind: fc.constant('chunk' as const), text: content, multiline: fc.boolean(), id: fc.constant(null), named: fc.boolean() }), {
          minLength: 2,
          maxLength: 4,
        }),
        fc.constantFrom('\n', '\r\n', '\r'),
        splitSpec,
        async (parts, eol, spec) => {
          const whole = sseStream(parts, 'done', eol);
          const first = sseStream(parts.slice(0, 1), 'no-done', eol);
          const length = Buffer.byteLength(whole.text);
          let resume!: () => void;
          const resumed = new Promise<void>((resolve) => {
            resume = resolve;
          });
          // The first event, whole, then nothing until the client has yielded its chunk.
          const pauseAt = Buffer.byteLength(first.text);
          fuzz.server().script([
            { status: 200, headers: { 'content-type': 'text/event-stream' }, body: Buffer.from(whole.text), splits: splitsOf(spec, length), pauseAt, resume: resumed },
          ]);
          const client = makeClient();
          try {
            const stream = await client.inference.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
            const iterator = stream[Symbol.asyncIterator]();
            const next = await settlesWithin(iterator.next(), 'the chunk of an event whose bytes have all arrived', 3);
            expect(next).toEqual({ done: false, value: whole.items[0] });
            resume();
            const rest: unknown[] = [];
            for (let item = await iterator.next(); !item.done; item = await iterator.next()) rest.push(item.value);
            expect(rest).toEqual(whole.items.slice(1));
          } finally {
            resume();
            await client.close();
          }
          await fuzz.server().allSocketsClosed();
        },
      ),
      runs(40),
    );
  });

  it('a JSONL listing: same items, same end, as the reference reading says', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(jsonlLine, { maxLength: 8 }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        splitSpec,
        splitSpec,
        fc.option(fc.integer({ min: 0, max: 9_999 }), { nil: undefined }),
        async (lines, eol, finalEol, specA, specB, cutFraction) => {
          const expected = jsonlStream(lines, eol, finalEol);
          const length = Buffer.byteLength(expected.text);
          const splitA = splitsOf(specA, length);
          const splitB = splitsOf(specB, length);
          const cutAt = cutFraction === undefined ? undefined : Math.floor((cutFraction * length) / 10_000);
          const a = await serveAndRead(expected.text, 'application/jsonl', splitA, cutAt, readJsonl);
          const b = await serveAndRead(expected.text, 'application/jsonl', splitB, cutAt, readJsonl);
          expect(a).toEqual(b);
          if (cutAt !== undefined && cutAt < length) {
            // A listing cut short is an error (a cut through a line never yields half of it), after a prefix of the items.
            expect(expected.items.slice(0, a.items.length)).toEqual(a.items);
            expect(a.error?.name).toMatch(/^(WeftConnectionError|WeftParseError)$/);
          } else {
            expect(a).toEqual({ items: expected.items, error: expected.error });
          }
          expect(fuzz.unhandled).toEqual([]);
        },
      ),
      runs(120),
    );
  });
});

