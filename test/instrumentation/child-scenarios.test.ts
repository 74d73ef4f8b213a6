import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKindCode, StatusCodeValue } from '../../src/otlp/index.js';
import { type ChildResult, repoRoot, startNode } from '../helpers/child.js';
import { HELLO, type OpenAIServer, type ScriptedReply, startOpenAIServer } from '../helpers/openai-server.js';
import { type OtlpReceiver, spanNamed, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import {
  DETAILED_ATTRIBUTES,
  DETAILED_HELLO,
  HELLO_CUT_SHORT,
  HELLO_OUTPUT,
  HELLO_RESPONSE,
  HELLO_USAGE,
  HI_INPUT,
  TWO_CHOICES,
  TWO_CHOICES_ATTRIBUTES,
  WEATHER_CALL,
  WEATHER_CALL_ATTRIBUTES,
  WEATHER_QUESTION,
  WEATHER_TOOL_CALL,
  WEATHER_TOOL_DEFINITION,
  withContentParsed,
} from './expected-spans.js';

/**
 * Every chat scenario of issue 3 in real processes running the BUILT package, the way users start weft: one app
 * with no weft code (test/fixtures/instrumentation/run-scenarios.cjs), as an ES module importing openai's ESM
 * build and as CommonJS requiring its CommonJS build, started with `--import weft/register` or
 * `-r weft/register`. Each span is checked whole, as decoded from the OTLP protobuf the child exported, and what
 * the app saw is compared with what the same app sees without weft. On every major weft supports: the newest
 * (this repository's `openai`) and the older ones it installs under other names (`openai-v6`, `openai-v4`, and
 * `openai-v4-0`, the oldest release), each given to the apps as `openai` in a directory of their own.
 */

const fixtures = fileURLToPath(new URL('../fixtures/instrumentation/', import.meta.url));
const APP_FILES = ['scenarios.mjs', 'scenarios.cjs', 'run-scenarios.cjs'];
const OPENAI_API_KEY = 'sk-child-scenarios-0123456789abcdef';
const WEFT_API_KEY = 'weft-child-scenarios-key-9876543210';
/** Far above a run's second or so: a child still running then is stuck (on a stream that never ends, say). */
const CHILD_TIME_LIMIT_MS = 15_000;

/** What every stream records of its request and its first chunk. */
const STREAMED = { 'gen_ai.request.stream': true, 'gen_ai.response.time_to_first_chunk': expect.any(Number) };

interface Scenario {
  /** What the test's server answers to the scenario's request. */
  reply: ScriptedReply;
  /**
   * What the app sees, with or without weft (leaving out `raw`, which only the comparison between runs reads). An
   * error's message is worded by the major (openai 4.0.0 puts no status in front): it must contain the one given.
   */
  seen: Record<string, unknown>;
  /** The span's attributes beyond those of every call (operation, provider, model, server); content parsed. */
  attributes: Record<string, unknown>;
  /**
   * A failed span's `error.type` and status message: for an API error, the message the app got without weft, the
   * API key scrubbed (`[REDACTED]` in place of the key).
   */
  failure?: { type: string; message?: string };
}

/** Every scenario the app runs (run-scenarios.cjs), by name, which is also the model it asks for. */
const SCENARIOS: Record<string, Scenario> = {
  plain: {
    reply: DETAILED_HELLO,
    seen: { content: ['Hello there!'], toolCalls: [], usage: 25 },
    attributes: DETAILED_ATTRIBUTES,
  },
  'stream-with-usage': {
    reply: HELLO,
    // The usage-only chunk the app asked for is the sixth.
    seen: { stream: 'Stream', chunks: 6, content: ['Hello there!'], toolCalls: [], usage: 15 },
    attributes: { ...STREAMED, 'gen_ai.input.messages': HI_INPUT, ...HELLO_RESPONSE, ...HELLO_USAGE, 'gen_ai.output.messages': HELLO_OUTPUT },
  },
  'stream-without-usage': {
    reply: HELLO,
    // weft asks for usage behind the app's back; the app still sees five chunks and no usage.
    seen: { stream: 'Stream', chunks: 5, content: ['Hello there!'], toolCalls: [], usage: null },
    attributes: { ...STREAMED, 'gen_ai.input.messages': HI_INPUT, ...HELLO_RESPONSE, ...HELLO_USAGE, 'gen_ai.output.messages': HELLO_OUTPUT },
  },
  'tool-call': {
    reply: WEATHER_CALL,
    seen: { content: [null], toolCalls: ['get_weather({"city":"Paris"})'], usage: 39 },
    attributes: WEATHER_CALL_ATTRIBUTES,
  },
  'tool-call-stream': {
    reply: WEATHER_CALL,
    seen: { stream: 'Stream', chunks: 6, content: [''], toolCalls: ['get_weather({"city":"Paris"})'], usage: null },
    attributes: { ...STREAMED, ...WEATHER_CALL_ATTRIBUTES },
  },
  'tool-result': {
    reply: { ...HELLO, choices: [{ content: 'It rains in Paris.', finishReason: 'stop' }] },
    seen: { content: ['It rains in Paris.'], toolCalls: [], usage: 15 },
    attributes: {
      'gen_ai.tool.definitions': [WEATHER_TOOL_DEFINITION],
      'gen_ai.input.messages': [
        WEATHER_QUESTION,
        { role: 'assistant', parts: [WEATHER_TOOL_CALL] },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: 'rainy, 14°C' }] },
      ],
      ...HELLO_RESPONSE,
      ...HELLO_USAGE,
      'gen_ai.output.messages': [{ role: 'assistant', parts: [{ type: 'text', content: 'It rains in Paris.' }], finish_reason: 'stop' }],
    },
  },
  'two-choices': {
    reply: TWO_CHOICES,
    seen: { content: ['Red', 'Blue and'], toolCalls: [], usage: 8 },
    attributes: TWO_CHOICES_ATTRIBUTES,
  },
  'two-choices-stream': {
    reply: TWO_CHOICES,
    seen: { stream: 'Stream', chunks: 8, content: ['Red', 'Blue and'], toolCalls: [], usage: null },
    attributes: { ...STREAMED, ...TWO_CHOICES_ATTRIBUTES },
  },
  'bad-request': {
    // The server quotes the key it was sent, as OpenAI's own errors do: weft must keep it out of the span.
    reply: { status: 400, error: { message: `Invalid value for 'temperature' (key ${OPENAI_API_KEY})`, type: 'invalid_request_error' } },
    seen: {
      error: { class: 'BadRequestError', status: 400, sdkError: true, message: `Invalid value for 'temperature' (key ${OPENAI_API_KEY})` },
    },
    attributes: { 'gen_ai.input.messages': HI_INPUT, 'error.type': 'BadRequestError', 'http.response.status_code': 400 },
    failure: { type: 'BadRequestError' },
  },
  'rate-limited': {
    reply: { status: 429, error: { message: 'Rate limit reached', type: 'requests' } },
    seen: { error: { class: 'RateLimitError', status: 429, sdkError: true, message: 'Rate limit reached' } },
    attributes: { 'gen_ai.input.messages': HI_INPUT, 'error.type': 'RateLimitError', 'http.response.status_code': 429 },
    failure: { type: 'RateLimitError' },
  },
  'server-error': {
    reply: { status: 500, error: { message: 'The server had an error', type: 'server_error' } },
    seen: { error: { class: 'InternalServerError', status: 500, sdkError: true, message: 'The server had an error' } },
    attributes: { 'gen_ai.input.messages': HI_INPUT, 'error.type': 'InternalServerError', 'http.response.status_code': 500 },
    failure: { type: 'InternalServerError' },
  },
  'aborted-stream': {
    // The server sends two chunks and waits: only the app's abort ends the stream.
    reply: { ...HELLO, hangAfterChunks: 2 },
    seen: { stream: 'Stream', chunks: 2, content: ['Hello'], toolCalls: [], usage: null },
    attributes: { ...STREAMED, 'gen_ai.input.messages': HI_INPUT, ...HELLO_CUT_SHORT, 'error.type': 'AbortError' },
    failure: { type: 'AbortError', message: 'This operation was aborted' },
  },
  'abandoned-stream': {
    reply: HELLO,
    seen: { stream: 'Stream', chunks: 2, content: ['Hello'], toolCalls: [], usage: null },
    attributes: { ...STREAMED, 'gen_ai.input.messages': HI_INPUT, ...HELLO_CUT_SHORT },
  },
};
const SCENARIO_NAMES = Object.keys(SCENARIOS);
const STREAMED_SCENARIOS = SCENARIO_NAMES.filter((name) => 'stream' in SCENARIOS[name]!.seen);

const APPS = ['scenarios.mjs', 'scenarios.cjs'] as const;
type App = (typeof APPS)[number];
const RUNS: { title: string; app: App; loader: string[] }[] = [
  { title: 'an ES module app started with --import weft/register', app: 'scenarios.mjs', loader: ['--import', 'weft/register'] },
  { title: 'a CommonJS app started with --import weft/register', app: 'scenarios.cjs', loader: ['--import', 'weft/register'] },
  { title: 'a CommonJS app started with -r weft/register', app: 'scenarios.cjs', loader: ['-r', 'weft/register'] },
];

interface Run {
  result: ChildResult;
  /** What the app printed, by scenario. */
  seen: Record<string, Record<string, unknown>>;
  /** The run's own receiver; absent for a run without weft. */
  receiver?: OtlpReceiver;
}

/** The majors the apps run on: `alias` is the package this repository installs that major as (none: `openai`). */
const MAJORS: { major: string; alias?: string }[] = [
  { major: 'openai 7' },
  { major: 'openai 6', alias: 'openai-v6' },
  { major: 'openai 4 (its last release)', alias: 'openai-v4' },
  { major: 'openai 4.0.0', alias: 'openai-v4-0' },
];

let server: OpenAIServer;
let workspace: string;

beforeAll(async () => {
  server = await startOpenAIServer();
  server.reply(
    (request) =>
      SCENARIOS[String(request.body.model)]?.reply ?? { status: 404, error: { message: `no scenario ${String(request.body.model)}` } },
  );
  // Inside the repository, so that the older majors' own dependencies resolve.
  workspace = mkdtempSync(join(repoRoot, 'test', '.tmp-child-scenarios-'));
});

afterAll(async () => {
  await server?.close();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

/**
 * Where the apps of a major are, and the node options that load it as `openai`: for an older major, a directory
 * of its own whose `node_modules/openai` links to it (and `node_modules/weft` to this repository), with
 * `--preserve-symlinks` so that the link's name is the package's, as in a user's project.
 */
function appsFor(alias: string | undefined): { dir: string; nodeArgs: string[] } {
  if (!alias) return { dir: fixtures, nodeArgs: [] };
  const dir = join(workspace, alias);
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(join(repoRoot, 'node_modules', alias), join(dir, 'node_modules', 'openai'), 'dir');
  symlinkSync(repoRoot, join(dir, 'node_modules', 'weft'), 'dir');
  for (const file of APP_FILES) cpSync(join(fixtures, file), join(dir, file));
  return { dir, nodeArgs: ['--preserve-symlinks'] };
}

async function runApp(app: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = startNode(args, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY, ...env });
  const limit = setTimeout(() => child.child.kill('SIGKILL'), CHILD_TIME_LIMIT_MS);
  const result = await child.exited;
  clearTimeout(limit);
  const seen: Run['seen'] = {};
  for (const line of result.stdout.split('\n').filter(Boolean)) {
    const { scenario, ...rest } = JSON.parse(line) as { scenario: string } & Record<string, unknown>;
    seen[scenario] = rest;
  }
  if (!result.stdout) throw new Error(`${app} printed nothing; exit ${result.code}, stderr:\n${result.stderr}`);
  return { result, seen };
}

/** The scenario names in the order the app ran them, and what it saw of each, `raw` left out. */
function summary(run: Run): Record<string, unknown> {
  return Object.fromEntries(Object.entries(run.seen).map(([name, { raw: _raw, ...rest }]) => [name, rest]));
}

/** What the app must see of each scenario without weft, an error's message as the major words it. */
function expectedSummary(): Record<string, unknown> {
  return Object.fromEntries(
    SCENARIO_NAMES.map((name) => {
      const { seen } = SCENARIOS[name]!;
      const error = seen.error as { message: string } | undefined;
      return [name, error ? { error: { ...error, message: expect.stringContaining(error.message) } } : seen];
    }),
  );
}

describe.each(MAJORS)('$major', ({ alias }) => {
  const baselines = new Map<App, Run>();
  const traced = new Map<string, Run>();

  // One child per app and loader, all at once against one server: each request names its scenario in its model.
  beforeAll(async () => {
    const { dir, nodeArgs } = appsFor(alias);
    const runs: Promise<void>[] = [];
    for (const app of APPS) runs.push(runApp(app, [...nodeArgs, join(dir, app)]).then((run) => void baselines.set(app, run)));
    for (const { title, app, loader } of RUNS) {
      runs.push(
        startOtlpReceiver().then(async (receiver) => {
          const env = { WEFT_BASE_URL: receiver.url, WEFT_PROJECT: 'acme/scenarios', WEFT_API_KEY };
          const run = await runApp(app, [...nodeArgs, ...loader, join(dir, app)], env);
          traced.set(title, { ...run, receiver });
        }),
      );
    }
    await Promise.all(runs);
  });

  afterAll(async () => {
    await Promise.all([...traced.values()].map((run) => run.receiver?.close()));
  });

  describe.each(APPS)('%s without weft', (app) => {
    it('sees every scripted reply as the SDK gives it, the errors as the SDK’s own classes', () => {
      const run = baselines.get(app)!;
      expect(run.result.stderr).toBe('');
      expect(run.result.code).toBe(0);
      expect(Object.keys(run.seen)).toEqual(SCENARIO_NAMES);
      expect(summary(run)).toEqual(expectedSummary());
    });
  });

  describe.each(RUNS)('$title', ({ title, app }) => {
    const run = () => traced.get(title)!;
    const spans = () => run().receiver!.spans();

    it('runs every scenario to the end with nothing on stderr', () => {
      expect(run().result.stderr).toBe('');
      expect(run().result.code).toBe(0);
      expect(Object.keys(run().seen)).toEqual(SCENARIO_NAMES);
    });

    it('sees exactly what the same app sees without weft, chunk for chunk', () => {
      expect(run().seen).toEqual(baselines.get(app)!.seen);
    });

    it('exports one CLIENT span per scenario, named chat and its model, from weft’s instrumentation', () => {
      expect(spans().map((s) => s.name).sort()).toEqual(SCENARIO_NAMES.map((name) => `chat ${name}`).sort());
      for (const span of spans()) {
        expect(span.kind).toBe(SpanKindCode.CLIENT);
        expect(span.scope.name).toBe('weft/openai');
      }
    });

    it.each(SCENARIO_NAMES)('records the %s call with exactly the expected attributes, status and events', (name) => {
      const scenario = SCENARIOS[name]!;
      const span = spanNamed(spans(), `chat ${name}`);
      expect(withContentParsed(span.attributes)).toEqual({
        'gen_ai.operation.name': 'chat',
        'weave.span.kind': 'llm',
        'gen_ai.provider.name': 'openai',
        'openai.api.type': 'chat_completions',
        'gen_ai.request.model': name,
        'server.address': '127.0.0.1',
        'server.port': server.port,
        ...scenario.attributes,
      });
      if (scenario.failure) {
        const seenError = baselines.get(app)!.seen[name]?.error as { message: string } | undefined;
        const message = scenario.failure.message ?? seenError!.message.replaceAll(OPENAI_API_KEY, '[REDACTED]');
        // The class in front of the message, as Node prints it: the trace service shows only the status message.
        expect(span.status).toEqual({ code: StatusCodeValue.ERROR, message: `${scenario.failure.type}: ${message}` });
        expect(span.events).toEqual([
          {
            name: 'exception',
            timeUnixNano: expect.any(BigInt),
            attributes: {
              'exception.type': scenario.failure.type,
              'exception.message': message,
              'exception.stacktrace': expect.any(String),
            },
          },
        ]);
      } else {
        expect(span.status).toEqual({ code: StatusCodeValue.UNSET, message: '' });
        expect(span.events).toEqual([]);
      }
    });

    it('records the time to its first chunk on every stream, and on nothing else', () => {
      const withTime = spans().filter((s) => 'gen_ai.response.time_to_first_chunk' in s.attributes);
      expect(withTime.map((s) => s.name).sort()).toEqual(STREAMED_SCENARIOS.map((name) => `chat ${name}`).sort());
      for (const span of withTime) expect(span.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThan(0);
    });

    it('exports neither the app’s OpenAI key, which the server quoted in an error, nor weft’s own key', () => {
      const bodies = run().receiver!.requests.map((r) => r.body);
      expect(bodies.length).toBeGreaterThan(0);
      for (const body of bodies) {
        expect(body.includes(OPENAI_API_KEY)).toBe(false);
        expect(body.includes(WEFT_API_KEY)).toBe(false);
      }
    });
  });
});
