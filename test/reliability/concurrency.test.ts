import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecodedSpan } from '../../src/otlp/index.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { type ReliabilityChatServer, startReliabilityChatServer } from './helpers/chat-server.js';
import { type FixtureRun, runFixture, weftOptions } from './helpers/run-fixture.js';

const REQUESTS = 1000;

let chat: ReliabilityChatServer;
let receiver: OtlpReceiver;
let run: FixtureRun;
let spans: DecodedSpan[];
let requests: Map<string, DecodedSpan>;

/** The request number a span belongs to, read from what it recorded. */
function numberIn(span: DecodedSpan): number | undefined {
  const n = span.attributes['app.n'];
  if (typeof n === 'number' || typeof n === 'bigint') return Number(n);
  const text = JSON.stringify(span.attributes, (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
  const fromMessage = /request (\d+)/.exec(text);
  if (fromMessage) return Number(fromMessage[1]);
  const fromInputs = /"n"\s*:\s*(\d+)/.exec(String(span.attributes.inputs ?? ''));
  return fromInputs ? Number(fromInputs[1]) : undefined;
}

beforeAll(async () => {
  chat = await startReliabilityChatServer();
  receiver = await startOtlpReceiver();
  run = await runFixture('concurrency.cjs', {
    CHAT_URL: chat.baseURL,
    ...weftOptions({ baseUrl: receiver.url, project: 'reliability/concurrency', batch: { maxQueueSize: 8192 } }),
  });
  spans = receiver.spans();
  requests = new Map(spans.filter((s) => s.name === 'app.request').map((s) => [s.spanId, s]));
}, 120_000);
afterAll(async () => {
  await chat.close();
  await receiver.close();
});

describe(`${REQUESTS} parallel traced requests`, () => {
  it('all complete with their own results, contexts and thread ids', () => {
    const report = run.reports[0] as { count: number; wrongCount: number; wrong: unknown[] } | undefined;
    expect(report, run.stderr).toBeDefined();
    expect(report!.count).toBe(REQUESTS);
    expect(report!.wrong).toEqual([]);
  });

  it('export one root span per request, each in a trace of its own', () => {
    expect(requests.size).toBe(REQUESTS);
    expect(new Set([...requests.values()].map((s) => s.traceId)).size).toBe(REQUESTS);
    expect([...requests.values()].every((s) => s.parentSpanId === undefined)).toBe(true);
  });

  it('put every nested op span under the request that made it', () => {
    const inner = spans.filter((s) => s.name === 'inner');
    expect(inner).toHaveLength(REQUESTS);
    const misplaced = inner.filter((s) => {
      const parent = requests.get(s.parentSpanId ?? '');
      return !parent || parent.traceId !== s.traceId || numberIn(parent) !== numberIn(s);
    });
    expect(misplaced.map((s) => s.spanId)).toEqual([]);
  });

  it('put every chat span under the request that made it', () => {
    const chats = spans.filter((s) => typeof s.attributes['gen_ai.request.model'] === 'string');
    expect(chats).toHaveLength(REQUESTS);
    const misplaced = chats.filter((s) => {
      const parent = requests.get(s.parentSpanId ?? '');
      return !parent || parent.traceId !== s.traceId || numberIn(parent) !== numberIn(s);
    });
    expect(misplaced.map((s) => s.spanId)).toEqual([]);
  });

  it('carry each request’s thread id on every span of the request, its chat span included, and on no other', () => {
    expect(spans).toHaveLength(3 * REQUESTS);
    const wrongThread = spans.filter((s) => {
      const request = s.name === 'app.request' ? s : requests.get(s.parentSpanId ?? '');
      return !request || s.attributes['wandb.thread_id'] !== `thread-${numberIn(request)}`;
    });
    expect(wrongThread.map((s) => `${s.name} ${String(s.attributes['wandb.thread_id'])}`)).toEqual([]);
  });

  it('lose no span', () => {
    const stats = (run.reports[0] as { stats: { spansEnded: number; spansDropped: number } }).stats;
    expect(stats.spansDropped).toBe(0);
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(stats.spansEnded);
  });
});
