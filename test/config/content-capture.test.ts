import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runNode } from '../helpers/child.js';
import { loopbackPeersPerTest, tracedAppEnv } from '../helpers/loopback-peers.js';
import { spanNamed } from '../helpers/otlp-receiver.js';

// A privacy setting weft cannot read records no content (fail closed): whoever set it meant to change the default.

const FIXTURE = fileURLToPath(new URL('fixtures/op-calls-openai.cjs', import.meta.url));
const CONTENT = ['inputs', 'output', 'gen_ai.input.messages', 'gen_ai.output.messages'];
const peers = loopbackPeersPerTest();

/** Runs the fixture app against the peers, set up as `setup` says, with `env` added. */
function runApp(setup: 'register' | 'processor' | 'none', env: Record<string, string>, args: string[] = []) {
  return runNode([...args, FIXTURE], { ...tracedAppEnv(peers, 'sk-openai-capture'), FIXTURE_SETUP: setup, ...env });
}

/** The content attributes every span received has; none is expected. */
function recordedContent(): string[] {
  return peers.receiver.spans().flatMap((span) => CONTENT.filter((key) => key in span.attributes).map((key) => `${span.name}: ${key}`));
}

describe('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT set to a value weft cannot read', () => {
  it.each(['off', 'none', 'disabled'])('(%s) leaves content out of chat spans and ops, and says so once, naming the variable', async (value) => {
    const result = await runApp('register', { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: value });
    expect(result.code, result.stderr).toBe(0);
    const spans = peers.receiver.spans();
    spanNamed(spans, 'answer');
    expect(spans.some((span) => span.name.startsWith('chat'))).toBe(true);
    expect(recordedContent()).toEqual([]);
    const warnings = result.stderr.split('\n').filter((line) => line.includes('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`"${value}"`);
    expect(warnings[0]).toContain('expected one of true, 1, yes');
    expect(warnings[0]).toContain('no content is recorded');
  });

  it('still records content for the values it reads', async () => {
    const result = await runApp('register', { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'span_only' });
    expect(result.code, result.stderr).toBe(0);
    expect(recordedContent()).toContain('answer: inputs');
  });
});

describe('WEFT_CAPTURE_CONTENT set to a value weft cannot read, under weftSpanProcessor() without register()', () => {
  it('records no op inputs or outputs, and says so once, naming the variable and the values it takes', async () => {
    const result = await runApp('processor', { WEFT_CAPTURE_CONTENT: 'no' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('answer Hello');
    spanNamed(peers.receiver.spans(), 'answer');
    expect(recordedContent()).toEqual([]);
    expect(result.stderr).not.toContain('tracing failed');
    const warnings = result.stderr.split('\n').filter((line) => line.includes('WEFT_CAPTURE_CONTENT'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('one of all, input, output, none; got "no"');
    expect(warnings[0]).toContain('No content is recorded');
  });
});

describe('OTEL_BSP_SCHEDULE_DELAY=0 under --import weft/register', () => {
  it('leaves tracing on: the op and its chat call are exported', async () => {
    const result = await runApp('none', { OTEL_BSP_SCHEDULE_DELAY: '0' }, ['--import', 'weft/register']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('Tracing is off');
    spanNamed(peers.receiver.spans(), 'answer');
  });
});
