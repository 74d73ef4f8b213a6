import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecodedSpan } from '../../src/otlp/index.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { type ReliabilityChatServer, startReliabilityChatServer } from './helpers/chat-server.js';
import { type FixtureRun, runFixture, weftOptions } from './helpers/run-fixture.js';

// The largest attribute weft writes: the chat mapping's bound (256 KiB of text), and op()'s JSON bound
// (100,000 characters plus the closing of what was cut), whichever is larger, plus room for a cut marker.
const ATTRIBUTE_LIMIT = 262_144 + 1024;
// The SDK's default attribute count limit.
const ATTRIBUTE_COUNT_LIMIT = 128;
// Attributes whose value is JSON text by contract.
const JSON_KEYS = ['inputs', 'gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions', 'gen_ai.tool.definitions'];

let chat: ReliabilityChatServer;
let receiver: OtlpReceiver;
let without: FixtureRun;
let withWeft: FixtureRun;
let spans: DecodedSpan[];
let chatRequestsWithWeft: number;

type Outcomes = Record<string, { ok: boolean }>;
const outcomesOf = (run: FixtureRun) => (run.reports[0] as { outcomes: Outcomes } | undefined)?.outcomes;

beforeAll(async () => {
  chat = await startReliabilityChatServer();
  receiver = await startOtlpReceiver();
  without = await runFixture('bad-inputs.cjs', { CHAT_URL: chat.baseURL });
  const before = chat.requests.length;
  withWeft = await runFixture('bad-inputs.cjs', {
    CHAT_URL: chat.baseURL,
    ...weftOptions({ baseUrl: receiver.url, project: 'reliability/bad-inputs' }),
  });
  chatRequestsWithWeft = chat.requests.length - before;
  spans = receiver.spans();
}, 120_000);
afterAll(async () => {
  await chat.close();
  await receiver.close();
});

describe('hostile inputs through every public entry point', () => {
  it('run to the end of the app with and without weft', () => {
    expect(without.code, without.stderr).toBe(0);
    expect(withWeft.code, withWeft.stderr).toBe(0);
  });

  it('give the app, case by case, exactly what it gets without weft', () => {
    expect(outcomesOf(without)).toBeDefined();
    expect(outcomesOf(withWeft)).toEqual(outcomesOf(without));
  });

  it('are exported as spans that all decode', () => {
    expect(receiver.requests.length).toBeGreaterThan(0);
    for (const request of receiver.requests) expect(request.spans.length).toBeGreaterThan(0);
    expect(spans.length).toBeGreaterThanOrEqual(Object.keys(outcomesOf(withWeft) ?? {}).length);
  });

  it('give every chat request that reached the server its chat span', () => {
    const chatSpans = spans.filter((s) => typeof s.attributes['gen_ai.request.model'] === 'string');
    expect(chatRequestsWithWeft).toBeGreaterThan(10);
    expect(chatSpans.length).toBeGreaterThanOrEqual(chatRequestsWithWeft);
  });

  it('keep every span within the attribute limits', () => {
    const tooLong = spans.flatMap((s) =>
      Object.entries(s.attributes)
        .filter(([, v]) => typeof v === 'string' && v.length > ATTRIBUTE_LIMIT)
        .map(([k, v]) => `${s.name} ${k}: ${(v as string).length}`),
    );
    expect(tooLong).toEqual([]);
    expect(Math.max(...spans.map((s) => Object.keys(s.attributes).length))).toBeLessThanOrEqual(ATTRIBUTE_COUNT_LIMIT);
  });

  it('leave every JSON attribute valid JSON', () => {
    const invalid: string[] = [];
    for (const span of spans) {
      for (const key of JSON_KEYS) {
        const value = span.attributes[key];
        if (typeof value !== 'string') continue;
        try {
          JSON.parse(value);
        } catch {
          invalid.push(`${span.name} ${key}: ${value.slice(0, 80)}`);
        }
      }
      const output = span.attributes.output;
      if (typeof output === 'string' && /^[[{]/.test(output)) {
        try {
          JSON.parse(output);
        } catch {
          invalid.push(`${span.name} output: ${output.slice(0, 80)}`);
        }
      }
    }
    expect(invalid).toEqual([]);
  });

  it('drop no span on the way', () => {
    const stats = (withWeft.reports[0] as { stats: { spansEnded: number; spansDropped: number } }).stats;
    expect(stats.spansDropped).toBe(0);
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(stats.spansEnded);
  });
});
