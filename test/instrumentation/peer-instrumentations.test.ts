import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { type DecodedSpan, StatusCodeValue } from '../../src/otlp/index.js';
import { type ChildResult, runNode } from '../helpers/child.js';
import { HELLO, type OpenAIServer, type ScriptedReply, startOpenAIServer } from '../helpers/openai-server.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

/**
 * weft next to another instrumentation of `openai` in one process, as in an app migrating from one, or running two
 * libraries that each bring their own: OpenTelemetry contrib's, OpenInference's (arize) and OpenLLMetry's (traceloop),
 * each patching openai before weft (weft's wrapper outside theirs) or after it (theirs outside weft's), on weft's
 * provider. The app (test/fixtures/instrumentation/peer-coexistence.cjs, on the BUILT package) must see what it sees
 * with the peer alone, and never crash; weft's span of each call must be whole; the two spans of a call nest.
 */

const fixture = fileURLToPath(new URL('../fixtures/instrumentation/peer-coexistence.cjs', import.meta.url));
const disableOrderFixture = fileURLToPath(new URL('../fixtures/instrumentation/peer-disable-order.cjs', import.meta.url));
const WEFT_SCOPE = 'weft/openai';

type Peer = 'otel' | 'arize' | 'traceloop';
type Order = 'before' | 'after';

interface Cell {
  peer: Peer;
  order: Order;
  openai: 'openai' | 'openai-v6';
}

/**
 * Where the peer, inside weft, returns a type of its own instead of openai's `APIPromise`: traceloop's streams (an async
 * generator), and every call of arize on a copy of openai other than its own (a plain promise). weft cannot hide a chunk
 * in a type it does not know, so there it does not ask for stream usage.
 */
const foreignResults = ({ peer, order, openai }: Cell, streamed: boolean) =>
  order === 'before' && ((peer === 'traceloop' && streamed) || (peer === 'arize' && openai === 'openai-v6'));

// openai 6 for every peer (OTel contrib's and traceloop's support stops below 7), openai 7 for arize, whose does not.
const CELLS: Cell[] = [
  ...(['otel', 'arize', 'traceloop'] as const).flatMap((peer) =>
    (['before', 'after'] as const).map((order) => ({ peer, order, openai: 'openai-v6' as const })),
  ),
  { peer: 'arize', order: 'before', openai: 'openai' },
  { peer: 'arize', order: 'after', openai: 'openai' },
];

const SCENARIOS = [
  'plain',
  'with-response',
  'stream',
  'stream-with-usage',
  'break',
  'tee',
  'readable-stream',
  'abort',
  'bad-request',
  'server-error',
  'stream-bad-request',
  'cut-body',
  'parse',
  'helper',
];
/** Scenarios the app reads to the end: weft's span has the whole response. */
const WHOLE = ['plain', 'with-response', 'stream', 'stream-with-usage', 'tee', 'readable-stream', 'parse', 'helper'];

function reply(model: string): ScriptedReply {
  if (model.includes('bad-request')) return { status: 400, error: { message: 'Invalid value', type: 'invalid_request_error' } };
  if (model === 'server-error') return { status: 500, error: { message: 'The server had an error', type: 'server_error' } };
  if (model === 'abort') return { ...HELLO, hangAfterChunks: 2 };
  if (model === 'cut-body') return { ...HELLO, cutBody: true };
  if (model === 'parse') return { ...HELLO, choices: [{ content: '{"answer":42}', finishReason: 'stop' }] };
  return HELLO;
}

interface Run {
  result: ChildResult;
  seen: Record<string, Record<string, unknown>>;
  server: OpenAIServer;
  spans: DecodedSpan[];
}

async function runApp(cell: Cell, weft: boolean): Promise<Run> {
  const server = await startOpenAIServer();
  server.reply((request) => reply(String(request.body.model)));
  const receiver: OtlpReceiver = await startOtlpReceiver();
  try {
    const result = await runNode([fixture], {
      PEER: cell.peer,
      PEER_ORDER: cell.order,
      OPENAI_PACKAGE: cell.openai,
      WEFT: weft ? 'on' : 'off',
      // traceloop alone leaves the error of a failed streamed call unhandled, and crashes the app: not weft's to test.
      SCENARIOS: SCENARIOS.filter((name) => cell.peer !== 'traceloop' || name !== 'stream-bad-request').join(','),
      OPENAI_BASE_URL: server.baseURL,
      WEFT_BASE_URL: receiver.url,
      WEFT_PROJECT: 'acme/peers',
    });
    const seen = result.code === 0 ? (JSON.parse(result.stdout) as Run['seen']) : {};
    return { result, seen, server, spans: receiver.spans() };
  } finally {
    await server.close();
    await receiver.close();
  }
}

const title = ({ peer, order, openai }: Cell) => `${peer} patching ${openai === 'openai' ? 'openai 7' : 'openai 6'} ${order} weft`;

/** An error the app met because the peer's result lacks something of openai's it uses: the app's, not the call's. */
const peersOwnError = (seen: Record<string, unknown>) => 'error' in seen && (seen.error as { callError: boolean }).callError !== true;

describe.each(CELLS.map((cell) => [title(cell), cell] as const))('%s', (_title, cell) => {
  let traced: Run;
  let alone: Run;
  beforeAll(async () => {
    [traced, alone] = await Promise.all([runApp(cell, true), runApp(cell, false)]);
  }, 60_000);

  it('leaves the app with what it gets from the peer alone, and never crashes it', () => {
    expect(alone.result.code, alone.result.stderr).toBe(0);
    expect(traced.result.code, traced.result.stderr).toBe(0);
    // Results, errors, stream types and chunks (no usage chunk, nor `usage` key, the app did not ask for).
    expect(traced.seen).toEqual(alone.seen);
  });

  it('records each call once, whole: its error, or its response with usage wherever weft could ask for it', () => {
    const weftSpans = traced.spans.filter((span) => span.scope.name === WEFT_SCOPE);
    expect(Object.keys(traced.seen)).not.toHaveLength(0);
    for (const [name, seen] of Object.entries(traced.seen)) {
      const spans = weftSpans.filter((span) => span.name === `chat ${name}`);
      expect(spans, name).toHaveLength(1);
      const span = spans[0]!;
      if (peersOwnError(seen)) continue;
      const failed = 'error' in seen || seen.aborted === true;
      expect(span.status.code, `${name}: ${span.status.message}`).toBe(failed ? StatusCodeValue.ERROR : StatusCodeValue.UNSET);
      // Failed by the call's own error, not ended unfinished by shutdown().
      const errorClass = (seen.error as { class: string } | undefined)?.class ?? 'AbortError';
      if (failed) expect(span.attributes['error.type'], name).toBe(errorClass);
      if (failed || !WHOLE.includes(name)) continue;
      const sent = traced.server.requests.find((request) => request.body.model === name)!.body;
      const streamed = sent.stream === true;
      const usageSent = (sent.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
      if (streamed && name !== 'stream-with-usage') expect(usageSent, name).toBe(!foreignResults(cell, streamed));
      expect(span.attributes, name).toMatchObject({
        'gen_ai.request.model': name,
        'gen_ai.response.finish_reasons': ['stop'],
        'gen_ai.output.messages': expect.any(String),
      });
      expect(span.attributes['llm.usage.total_tokens'], name).toBe(!streamed || usageSent ? 15 : undefined);
    }
  });

  it("nests the two spans of a call, the span of the instrumentation that patched last the other's parent", () => {
    const weftPlain = traced.spans.find((span) => span.scope.name === WEFT_SCOPE && span.name === 'chat plain')!;
    const peerPlain = traced.spans.find((span) => span.scope.name !== WEFT_SCOPE && span.traceId === weftPlain.traceId);
    expect(peerPlain).toBeDefined();
    if (cell.order === 'before') expect(peerPlain!.parentSpanId).toBe(weftPlain.spanId);
    else expect(weftPlain.parentSpanId).toBe(peerPlain!.spanId);
  });
});

describe('disabling weft and another openai instrumentation in turn', () => {
  it('leaves each method wrapped once by each enabled one, and unwrapped by both disabled', async () => {
    const server = await startOpenAIServer();
    const receiver = await startOtlpReceiver();
    try {
      const result = await runNode([disableOrderFixture], {
        OPENAI_BASE_URL: server.baseURL,
        WEFT_BASE_URL: receiver.url,
        WEFT_PROJECT: 'acme/peers',
      });
      // shimmer says so on stderr when an unwrap finds weft's wrapper where the peer's should be.
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const spans = receiver.spans();
      // arize records the model the server answered with, and the request as JSON.
      const model = (span: DecodedSpan) =>
        span.attributes['gen_ai.request.model'] ?? JSON.parse(String(span.attributes['input.value'])).model;
      const count = (step: string, weft: boolean) =>
        spans.filter((span) => (span.scope.name === WEFT_SCOPE) === weft && model(span) === step).length;
      const steps = result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { step: string; wrappers: string })
        .map(({ step, wrappers }) => ({ step, wrappers, weft: count(step, true), arize: count(step, false) }));
      expect(steps).toEqual([
        { step: 'start', wrappers: 'weft > other > openai', weft: 1, arize: 1 },
        { step: 'arize disabled', wrappers: 'weft > openai', weft: 1, arize: 0 },
        { step: 'arize enabled', wrappers: 'other > weft > openai', weft: 1, arize: 1 },
        { step: 'weft disabled', wrappers: 'other > weft > openai', weft: 0, arize: 1 },
        { step: 'arize disabled again', wrappers: 'weft > openai', weft: 0, arize: 0 },
        { step: 'weft enabled', wrappers: 'weft > openai', weft: 1, arize: 0 },
        { step: 'weft disabled again', wrappers: 'openai', weft: 0, arize: 0 },
        { step: 'both enabled', wrappers: 'weft > other > openai', weft: 1, arize: 1 },
      ]);
    } finally {
      await server.close();
      await receiver.close();
    }
  });
});
