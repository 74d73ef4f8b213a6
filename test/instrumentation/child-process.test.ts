import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type DecodedSpan, StatusCodeValue } from '../../src/otlp/index.js';
import { runNode } from '../helpers/child.js';
import { HELLO } from '../helpers/openai-server.js';
import { loopbackPeersPerTest, tracedAppEnv } from '../helpers/loopback-peers.js';
import { HELLO_OUTPUT, HELLO_RESPONSE, HELLO_USAGE, HI_INPUT } from './expected-spans.js';

/**
 * Real processes running the BUILT package (`npm run build` first), the way users start weft: no weft code in
 * the app, `node --import weft/register` for ES modules and `node -r weft/register` for CommonJS.
 */

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/instrumentation/${name}`, import.meta.url));
const API_KEY = 'sk-child-process-key-000111';

const peers = loopbackPeersPerTest();

function env(): Record<string, string> {
  return tracedAppEnv(peers, API_KEY, { WEFT_PROJECT: 'acme/chat' });
}

const INPUT = 'gen_ai.input.messages';
const OUTPUT = 'gen_ai.output.messages';
/** The content chat-calls.mjs (and .cjs) sends and gets back, as weft records it. */
const CONTENT = { [INPUT]: JSON.stringify(HI_INPUT), [OUTPUT]: JSON.stringify(HELLO_OUTPUT) };

/** What the plain call of chat-calls.mjs records, with the content of the sides given. */
function plainCall(recorded: readonly (typeof INPUT | typeof OUTPUT)[]): Record<string, unknown> {
  return {
    'gen_ai.operation.name': 'chat',
    'weave.span.kind': 'llm',
    'gen_ai.provider.name': 'openai',
    'openai.api.type': 'chat_completions',
    'gen_ai.request.model': 'gpt-4o-mini',
    'server.address': '127.0.0.1',
    'server.port': peers.server.port,
    ...HELLO_RESPONSE,
    ...HELLO_USAGE,
    ...Object.fromEntries(recorded.map((key) => [key, CONTENT[key]])),
  };
}

function expectChatSpans(spans: DecodedSpan[]): void {
  expect(spans.map((s) => s.name)).toEqual(['chat gpt-4o-mini', 'chat gpt-4o-mini']);
  const [plain, streamed] = spans;
  expect(plain?.attributes).toMatchObject({
    'gen_ai.operation.name': 'chat',
    'weave.span.kind': 'llm',
    'gen_ai.provider.name': 'openai',
    'server.port': peers.server.port,
    'gen_ai.response.id': 'chatcmpl-hello',
    'llm.usage.total_tokens': 15,
  });
  expect(streamed?.attributes).toMatchObject({ 'gen_ai.request.stream': true, 'llm.usage.total_tokens': 15 });
  expect(JSON.stringify(spans, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(API_KEY);
}

describe('an app started with weft/register', () => {
  it('is traced as an ES module importing openai (--import weft/register)', async () => {
    const result = await runNode(['--import', 'weft/register', fixture('chat-calls.mjs')], env());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ content: 'Hello there!', chunks: 5, stream: 'Stream' });
    expectChatSpans(peers.receiver.spans());
  });

  it('is traced as CommonJS requiring openai (-r weft/register)', async () => {
    const result = await runNode(['-r', 'weft/register', fixture('chat-calls.cjs')], env());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ content: 'Hello there!', chunks: 5, stream: 'Stream' });
    expectChatSpans(peers.receiver.spans());
  });

  it('patches the ESM and the CommonJS copy of openai in one process once each', async () => {
    const result = await runNode(['--import', 'weft/register', fixture('dual-copies.mjs')], env());
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ distinct: true, esm: 'Hello there!', cjs: 'Hello there!' });
    expect(peers.receiver.spans().map((s) => s.name).sort()).toEqual(['chat cjs-copy', 'chat esm-copy']);
  });

  it('unpatches both copies of openai when the instrumentation is disabled', async () => {
    const result = await runNode(['--import', 'weft/register', fixture('dual-copies-disable.mjs')], env());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // Each copy's `create` is openai's own again, the one weft's wrapper had replaced.
    expect(JSON.parse(result.stdout)).toEqual({ esm: { changed: true, original: true }, cjs: { changed: true, original: true } });
    expect(peers.server.requests.map((r) => r.body.model)).toEqual(['esm-before', 'cjs-before', 'esm-after', 'cjs-after']);
    expect(peers.receiver.spans().map((s) => s.name).sort()).toEqual(['chat cjs-before', 'chat esm-before']);
  });
});

describe('an ES module app started with --import weft/register after another registration', () => {

  it('is traced when -r weft/register came first, which registered before the loader hook was there', async () => {
    const result = await runNode(['-r', 'weft/register', '--import', 'weft/register', fixture('chat-calls.mjs')], env());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ content: 'Hello there!', chunks: 5, stream: 'Stream' });
    const spans = peers.receiver.spans();
    expect(spans.map((s) => s.name)).toEqual(['chat gpt-4o-mini', 'chat gpt-4o-mini']);
    expect(spans[0]?.attributes).toEqual(plainCall([INPUT, OUTPUT]));
  });

  it('is traced with the options of its own preload, which called register() before --import weft/register', async () => {
    const result = await runNode(['--import', fixture('own-setup.mjs'), '--import', 'weft/register', fixture('chat-calls.mjs')], env());
    // weft/register joins the app's registration: no warning of a second register().
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const spans = peers.receiver.spans();
    expect(spans.map((s) => s.name)).toEqual(['chat gpt-4o-mini', 'chat gpt-4o-mini']);
    expect(spans[0]?.attributes).toEqual(plainCall([]));
  });
});

describe('content settings from the environment', () => {
  for (const [variables, recorded] of [
    [{ WEFT_CAPTURE_CONTENT: 'none' }, []],
    [{ WEFT_CAPTURE_CONTENT: 'input' }, [INPUT]],
    [{ WEFT_CAPTURE_CONTENT: 'output' }, [OUTPUT]],
    [{ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'false' }, []],
    [{ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }, [INPUT, OUTPUT]],
    // weft's own variable wins over the one it shares with other instrumentations.
    [{ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'false', WEFT_CAPTURE_CONTENT: 'output' }, [OUTPUT]],
  ] as const) {
    const setting = Object.entries(variables)
      .map(([name, value]) => `${name}=${value}`)
      .join(' ');
    it(`records ${recorded.length === 0 ? 'no message content' : recorded.join(' and ')} with ${setting}, and all the rest`, async () => {
      const result = await runNode(['--import', 'weft/register', fixture('chat-calls.mjs')], { ...env(), ...variables });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const [plain, streamed] = peers.receiver.spans();
      const expected = plainCall(recorded);
      expect(plain?.attributes).toEqual(expected);
      expect(streamed?.attributes).toEqual({
        ...expected,
        'gen_ai.request.stream': true,
        'gen_ai.response.time_to_first_chunk': expect.any(Number),
      });
    });
  }

  it('records what register({ captureContent }) asks for, over the environment', async () => {
    const result = await runNode([fixture('register-content-option.cjs')], { ...env(), WEFT_CAPTURE_CONTENT: 'all' });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const spans = peers.receiver.spans();
    expect(spans.map((s) => s.name)).toEqual(['chat gpt-4o-mini', 'chat gpt-4o-mini']);
    for (const span of spans) {
      expect(span.attributes).not.toHaveProperty(INPUT);
      expect(span.attributes[OUTPUT]).toBe(CONTENT[OUTPUT]);
    }
  });

  it('keeps content valid JSON within the SDK’s attribute length limit', async () => {
    const result = await runNode(['--import', 'weft/register', fixture('long-message.mjs')], {
      ...env(),
      OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '2000',
    });
    expect(result.code).toBe(0);
    const [span] = peers.receiver.spans();
    for (const key of ['gen_ai.input.messages', 'gen_ai.system_instructions', 'gen_ai.output.messages']) {
      const value = span?.attributes[key] as string;
      expect(value.length).toBeLessThanOrEqual(2000);
      expect(() => JSON.parse(value)).not.toThrow();
    }
    const [message] = JSON.parse(span?.attributes['gen_ai.input.messages'] as string);
    expect(message.parts[0].content).toMatch(/^é+…\[weft: \d+ more chars\]$/);
  });
});

describe('an app that calls register() itself', () => {
  it('is traced until it disables the instrumentations, which unpatches openai', async () => {
    const result = await runNode([fixture('explicit-register.cjs')], env());
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('done');
    expect(peers.server.requests.map((r) => r.body.model)).toEqual(['gpt-4o-mini', 'after-disable']);
    expect(peers.receiver.spans().map((s) => s.name)).toEqual(['chat gpt-4o-mini']);
  });
});

describe('a CommonJS app that required openai before calling register()', () => {
  it('is traced: register() patches the copy already loaded', async () => {
    const result = await runNode([fixture('required-before-register.cjs')], env());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('done');
    expect(peers.receiver.spans().map((s) => s.name)).toEqual(['chat gpt-4o-mini']);
  });
});

describe('an app that registers its own instrumentation and patches openai by hand', () => {
  it('is traced with its options until it disables the instrumentations, which unpatches openai', async () => {
    const result = await runNode([fixture('custom-instance-disable.cjs')], env());
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('unpatched');
    expect(peers.server.requests.map((r) => r.body.model)).toEqual(['gpt-4o-mini', 'after-disable']);
    const spans = peers.receiver.spans();
    expect(spans.map((s) => s.name)).toEqual(['chat gpt-4o-mini']);
    expect(spans[0]?.attributes['gen_ai.input.messages']).toBeUndefined();
  });
});

describe('a stream the app drops unfinished', () => {
  it('still ends its span once it is garbage-collected', async () => {
    peers.server.reply({ ...HELLO, hangAfterChunks: 2 });
    const result = await runNode(['--expose-gc', fixture('abandoned-stream.mjs')], env());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('stream collected');
    const spans = peers.receiver.spans();
    expect(spans.map((s) => s.name)).toEqual(['chat gpt-4o-mini']);
    expect(spans[0]?.attributes).toMatchObject({ 'gen_ai.request.stream': true, 'gen_ai.response.id': 'chatcmpl-hello' });
  });

  it('ends the span as failed once it is garbage-collected, when the app aborted it without reading it', async () => {
    peers.server.reply({ ...HELLO, hangAfterChunks: 2 });
    const result = await runNode(['--expose-gc', fixture('abandoned-stream.mjs'), 'abort'], env());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('stream collected');
    const spans = peers.receiver.spans();
    expect(spans.map((s) => s.name)).toEqual(['chat gpt-4o-mini']);
    expect(spans[0]?.status.code).toBe(StatusCodeValue.ERROR);
    expect(spans[0]?.attributes).toMatchObject({ 'gen_ai.request.stream': true, 'error.type': 'AbortError' });
  });
});
