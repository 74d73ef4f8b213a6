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
const WEFT_MARKER = /^\[(weft: [^\]]+|[A-Za-z_$][\w$]*(: [^\]]+)?)\]$/;
const JSON_KEYS = ['inputs', 'gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions', 'gen_ai.tool.definitions'];

let chat: ReliabilityChatServer;
let receiver: OtlpReceiver;
let without: FixtureRun;
let withWeft: FixtureRun;
let spans: DecodedSpan[];
let chatRequestsWithWeft: number;

type Outcome = { ok: boolean };
type Outcomes = Record<string, Outcome>;
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
  await chat?.close();
  await receiver?.close();
});

const isChat = (s: DecodedSpan) => typeof s.attributes['gen_ai.request.model'] === 'string';
const named = (name: string) => (s: DecodedSpan) => s.name === name;

/** The spans each case made: those of the trace under its app span `case: <name>`. */
function spansOfCase(name: string): DecodedSpan[] {
  const root = spans.find((s) => s.name === `case: ${name}`);
  if (!root) throw new Error(`no span of the case "${name}" was exported`);
  return spans.filter((s) => s.traceId === root.traceId && s !== root);
}

/** Every case whose name starts with one of `prefixes`, with what the app got from it. */
function casesStartingWith(...prefixes: string[]): Array<[string, Outcome]> {
  return Object.entries(outcomesOf(withWeft) ?? {}).filter(([name]) => prefixes.some((p) => name.startsWith(p)));
}

/** `keys` that the span lacks, or whose value is not a string (a dropped attribute must not pass unseen). */
function missing(span: DecodedSpan | undefined, keys: string[]): string[] {
  return keys.filter((k) => span === undefined || span.attributes[k] === undefined);
}

/** Every string a span carries, where it sits: attribute values (and array items), event attributes, the status. */
function stringsOf(span: DecodedSpan): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const add = (where: string, value: unknown): void => {
    if (typeof value === 'string') out.push([where, value]);
    else if (Array.isArray(value)) for (const [i, v] of value.entries()) add(`${where}[${i}]`, v);
  };
  for (const [k, v] of Object.entries(span.attributes)) add(k, v);
  for (const event of span.events) for (const [k, v] of Object.entries(event.attributes)) add(`${event.name}.${k}`, v);
  add('status.message', span.status.message);
  return out;
}

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
    expect(chatRequestsWithWeft).toBeGreaterThan(10);
    expect(spans.filter(isChat).length).toBeGreaterThanOrEqual(chatRequestsWithWeft);
  });

  it('keep every string of every span (attributes, events, status) within the attribute limit', () => {
    const tooLong = spans.flatMap((s) => stringsOf(s).filter(([, v]) => v.length > ATTRIBUTE_LIMIT).map(([k, v]) => `${s.name} ${k}: ${v.length}`));
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
      // An output that is one of weft's markers for a value it does not spell out (`[Buffer: 12 bytes]`,
      // `[weft: unreadable]`, `[ClassName]`) is text, recorded as such; any other that starts like JSON must be JSON.
      const output = span.attributes.output;
      if (typeof output === 'string' && /^[[{]/.test(output) && !WEFT_MARKER.test(output)) {
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

// Limits and valid JSON are easy to meet by recording nothing: each case must also have recorded what it is for.
describe('hostile inputs are still recorded', () => {
  it('as the request, and the reply when there was one, of every chat call (openai, weft Client, traceChatCompletion)', () => {
    // Every property of this reply throws when read: there is nothing weft could record of it.
    const unreadable = 'traceChatCompletion(): a reply whose message is a hostile proxy';
    const requestsWithTools = /thousands of tools|tool arguments in the reply/;
    const gaps: string[] = [];
    for (const [name, outcome] of casesStartingWith('openai:', 'weft Client:', 'traceChatCompletion():')) {
      const chatSpan = spansOfCase(name).find(isChat);
      const keys = ['gen_ai.input.messages', ...(outcome.ok && name !== unreadable ? ['gen_ai.output.messages'] : [])];
      if (requestsWithTools.test(name)) keys.push('gen_ai.tool.definitions');
      for (const key of missing(chatSpan, keys)) gaps.push(`${name}: ${key}`);
    }
    expect(gaps).toEqual([]);
  });

  it('as the inputs and output of every op(), @traced() method and withSpan() block', () => {
    const expected: Array<[string[], (s: DecodedSpan) => boolean, string[]]> = [
      [['op() given'], named('echoBack'), ['inputs', 'output']],
      [['async op() returning'], named('produce'), ['output']],
      [['@traced() method given'], named('Model.predict'), ['inputs', 'output']],
      [['async @traced() method given'], named('Model.produce'), ['inputs', 'output']],
      [['withSpan() and span setters given'], (s) => s.name.startsWith('bad '), ['inputs', 'output', 'wandb.attributes.bad']],
    ];
    const gaps: string[] = [];
    for (const [prefixes, isTheSpan, keys] of expected) {
      for (const [name, outcome] of casesStartingWith(...prefixes)) {
        // A value whose `then` throws rejects the app's own `await`: there is no output, only the error.
        const recorded = outcome.ok ? keys : keys.filter((k) => k !== 'output');
        for (const key of missing(spansOfCase(name).find(isTheSpan), recorded)) gaps.push(`${name}: ${key}`);
      }
    }
    expect(gaps).toEqual([]);
  });

  it('as the error, cut to the limit, of traced code that throws', () => {
    const cases = casesStartingWith('op() throwing', 'withSpan() whose block throws', '@traced() method throwing');
    expect(cases.length).toBe(3);
    for (const [name] of cases) {
      const [span] = spansOfCase(name);
      expect(span?.status.code, name).toBe(2);
      expect(span?.events.map((e) => e.name), name).toContain('exception');
    }
  });

  it('with the scope of withContext() and withThread() on every span inside, chat spans included', () => {
    const gaps: string[] = [];
    for (const [name] of casesStartingWith('withContext()', 'withThread()')) {
      const inside = spansOfCase(name);
      expect(inside.length, name).toBeGreaterThan(0);
      for (const span of inside) {
        const keys = ['wandb.thread_id'];
        if (name.endsWith('in its metadata')) keys.push('user.id', 'session.id', 'wandb.attributes.value', 'wandb.attributes.tags');
        if (name.includes('tags')) keys.push('wandb.attributes.tags');
        for (const key of missing(span, keys)) gaps.push(`${name}, span ${span.name}: ${key}`);
      }
    }
    expect(gaps).toEqual([]);
  });
});
