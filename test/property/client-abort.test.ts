/**
 * Property: a call stopped by its caller's AbortSignal ends with a WeftAbortError, and one stopped by the client's
 * close() with a WeftConnectionError of code WEFT_CLIENT_CLOSED (README section 4), whatever it was doing then:
 * not yet sent, waiting for the answer, reading a body (a 2xx's or an error's), waiting between retries, or in the
 * middle of a stream. The server sees every connection closed afterwards, and nothing is left unhandled.
 *
 * The moments are events (the fuzz.server() got the request, paused mid-body, the client announced a retry, a stream
 * yielded), not times.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Client, WeftAbortError, WeftConnectionError, WeftError } from 'weft';
import { settlesWithin } from '../helpers/deadline.js';
import { API_KEY } from './client-fuzz-arbitraries.js';
import { type Reply, errorTexts, leakedFragment, useFuzzServer } from './client-fuzz-server.js';
import { runs } from './runs.js';

const fuzz = useFuzzServer();

type CallName = 'read' | 'start' | 'chat' | 'chatStream' | 'streamQuery';
type Moment = 'before' | 'request' | 'body' | 'retry' | 'stream';
type Stop = 'abort' | 'close';

const sse = (n: number) =>
  Array.from({ length: n }, (_, i) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: i, model: 'm', choices: [] })}\n\n`).join('') +
  'data: [DONE]\n\n';
const jsonl = (n: number) => Array.from({ length: n }, (_, i) => `${JSON.stringify({ id: `call-${i}` })}\n`).join('');

const STREAMS: Record<CallName, { contentType: string; text: string; firstItemBytes: number } | undefined> = {
  read: undefined,
  start: undefined,
  chat: undefined,
  chatStream: { contentType: 'text/event-stream', text: sse(3), firstItemBytes: Buffer.byteLength(sse(1)) - Buffer.byteLength('data: [DONE]\n\n') },
  streamQuery: { contentType: 'application/jsonl', text: jsonl(3), firstItemBytes: Buffer.byteLength(jsonl(1)) },
};

/** Whether a call is sent again after a 503 (README section 4). */
const retriesA503: Record<CallName, boolean> = { read: true, start: false, chat: true, chatStream: true, streamQuery: true };

async function run(client: Client, call: CallName, signal: AbortSignal, onItem: () => void): Promise<void> {
  switch (call) {
    case 'read':
      await client.trace.calls.read({ id: 'c1' }, { signal });
      return;
    case 'start':
      await client.trace.calls.start({ start: { op_name: 'op', started_at: '2025-01-01T00:00:00Z', attributes: {}, inputs: {} } }, { signal });
      return;
    case 'chat':
      await client.inference.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { signal });
      return;
    case 'chatStream': {
      const stream = await client.inference.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true }, { signal });
      for await (const _ of stream) onItem();
      return;
    }
    case 'streamQuery':
      for await (const _ of client.trace.calls.streamQuery({}, { signal })) onItem();
      return;
  }
}

describe('stopping a call', () => {
  it('ends it with the abort error (signal) or WEFT_CLIENT_CLOSED (close), whatever it was doing', async () => {
    const scenario = fc
      .tuple(fc.constantFrom<CallName>('read', 'start', 'chat', 'chatStream', 'streamQuery'), fc.constantFrom<Stop>('abort', 'close'))
      .chain(([call, stop]) =>
        fc.record({
          call: fc.constant(call),
          stop: fc.constant(stop),
          moment: fc.constantFrom<Moment>(...(STREAMS[call] ? (['before', 'request', 'body', 'retry', 'stream'] as const) : (['before', 'request', 'body', 'retry'] as const))),
          // Where the body pauses for the 'body' moment: a 2xx's or an error's, after this many bytes.
          status: fc.constantFrom(200, 500, 503, 404),
          pauseFraction: fc.double({ min: 0, max: 0.99, noNaN: true }),
        }),
      );
    await fc.assert(
      fc.asyncProperty(scenario, async ({ call, stop, moment, status, pauseFraction }) => {
        const controller = new AbortController();
        let stopNow!: () => void;
        const client = fuzz.client({
          maxRetries: 2,
          timeoutMs: 10_000,
          backoff: { initialDelayMs: 1, maxDelayMs: 2 },
          onRetry: () => {
            if (moment === 'retry') stopNow();
          },
        });
        stopNow = () => {
          if (stop === 'abort') controller.abort(new Error('stopped by the property'));
          else void client.close();
        };

        const stream = STREAMS[call];
        const body = stream
          ? Buffer.from(stream.text)
          : Buffer.from(JSON.stringify(status >= 400 ? { detail: 'no such thing' } : { id: 'c1', call: null, choices: [] }));
        const reply: Reply = { status: 200, headers: { 'content-type': stream?.contentType ?? 'application/json' }, body };
        let expectStopped = true;
        if (moment === 'request') reply.hang = true;
        if (moment === 'body') {
          reply.status = stream ? 200 : status;
          reply.pauseAt = Math.floor(pauseFraction * body.length);
          reply.resume = new Promise<void>(() => {});
          // Stopped a little after the fuzz.server() paused, so that the client has most often read the headers and the bytes
          // before the pause by then (the property holds at whatever moment it comes).
          reply.onPause = () => setTimeout(stopNow, 20);
        }
        if (moment === 'retry') {
          Object.assign(reply, { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '1' }, body: Buffer.from('{"detail":"busy"}') });
          expectStopped = retriesA503[call];
        }
        if (moment === 'stream' && stream) {
          reply.pauseAt = stream.firstItemBytes;
          reply.resume = new Promise<void>(() => {});
        }
        fuzz.server().script([reply]);
        if (moment === 'request') void fuzz.server().requestArrived().then(stopNow);
        if (moment === 'before') stopNow();

        let items = 0;
        const error = await settlesWithin(
          run(client, call, controller.signal, () => {
            items++;
            if (moment === 'stream') stopNow();
          }).then(
            () => undefined,
            (e: unknown) => e,
          ),
          `the ${call} call stopped (${stop}) at the ${moment}`,
        );
        await client.close();
        await fuzz.server().allSocketsClosed();

        expect(error, 'the call completed').toBeInstanceOf(WeftError);
        expect(leakedFragment(errorTexts(error), API_KEY)).toBeUndefined();
        if (!expectStopped) {
          // Not retried: the 503 itself, before anyone stopped it.
          expect((error as { status?: number }).status).toBe(503);
          return;
        }
        if (stop === 'abort') {
          expect(error, String(error)).toBeInstanceOf(WeftAbortError);
        } else {
          expect(error, String(error)).toBeInstanceOf(WeftConnectionError);
          expect((error as WeftConnectionError).code, String(error)).toBe('WEFT_CLIENT_CLOSED');
        }
        if (moment === 'stream') expect(items).toBe(1);
        expect(fuzz.unhandled).toEqual([]);
      }),
      runs(300),
    );
  });
});
