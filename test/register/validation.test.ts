import { type DiagLogger, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { register, type WeftHandle, WeftConfigError, weftSpanProcessor } from 'weft';
import { runNode } from '../helpers/child.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

const KEY = 'sk-never-print-me-5678';

function configError(run: () => WeftHandle): WeftConfigError {
  try {
    // Accepted by mistake: stop it, so that the next test registers afresh.
    void run().shutdown();
  } catch (error) {
    if (error instanceof WeftConfigError) return error;
    throw error;
  }
  throw new Error('expected a WeftConfigError');
}

function recordingLogger(): DiagLogger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (...args: unknown[]) => {
    lines.push(args.map(String).join(' '));
  };
  return { lines, error: keep, warn: keep, info: keep, debug: keep, verbose: keep };
}

let handle: WeftHandle | undefined;
let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  for (const name of ['WEFT_API_KEY', 'WEFT_PROJECT', 'WEFT_LOG_LEVEL', 'OTEL_LOG_LEVEL', 'OTEL_SDK_DISABLED']) delete process.env[name];
  await handle?.shutdown();
  await receiver?.close();
  handle = undefined;
  receiver = undefined;
});

describe('register() refuses values that could never be sent, naming where they came from', () => {
  it('refuses an API key with non-ASCII characters, without repeating it', () => {
    process.env.WEFT_API_KEY = `${KEY}é`;
    const error = configError(() => register({ instrumentations: [] }));
    expect(error.option).toBe('apiKey');
    expect(error.message).toContain('WEFT_API_KEY');
    expect(error.message).not.toContain(KEY);
  });

  it('refuses a project with non-ASCII characters', () => {
    process.env.WEFT_PROJECT = 'équipe/bot';
    const error = configError(() => register({ instrumentations: [] }));
    expect(error.option).toBe('project');
    expect(error.message).toContain('WEFT_PROJECT');
  });

  for (const bad of [0, -1, 1.5, Number.NaN]) {
    it(`refuses exitFlushTimeoutMillis ${bad}`, () => {
      const error = configError(() => register({ instrumentations: [], exitFlushTimeoutMillis: bad }));
      expect(error.option).toBe('exitFlushTimeoutMillis');
      expect(error.message).toContain('positive integer');
    });
  }
});

describe('WEFT_LOG_LEVEL, weft\'s own variable', () => {
  it('fails register() when it names no level, naming it and the names it takes', () => {
    process.env.WEFT_LOG_LEVEL = 'loud';
    const error = configError(() => register({ instrumentations: [], flushOnExit: false }));
    expect(error.envVar).toBe('WEFT_LOG_LEVEL');
    expect(error.message).toContain('WEFT_LOG_LEVEL must be one of none, error, warn, info, debug, verbose, all; got "loud"');
  });

  it('fails weftSpanProcessor() too', () => {
    process.env.WEFT_LOG_LEVEL = 'loud';
    expect(() => weftSpanProcessor({ project: 'a/b' })).toThrow(/WEFT_LOG_LEVEL/);
  });

  it('is not checked under OTEL_SDK_DISABLED=true, where register() sets up nothing and reads nothing else', () => {
    process.env.WEFT_LOG_LEVEL = 'loud';
    process.env.OTEL_SDK_DISABLED = 'true';
    handle = register({ instrumentations: [] });
    expect(handle.endpoint).toBe('');
  });
});

describe("weft's diagnostics", () => {
  it('warn once, and keep the warn level, when OTEL_LOG_LEVEL names no level (OTel\'s convention)', () => {
    process.env.OTEL_LOG_LEVEL = 'loud';
    const logger = recordingLogger();
    handle = register({ instrumentations: [], flushOnExit: false, logger });
    expect(logger.lines).toEqual([expect.stringContaining('ignoring OTEL_LOG_LEVEL="loud" (expected one of none, error, warn')]);
  });

  it('follow OTEL_LOG_LEVEL when WEFT_LOG_LEVEL is set but empty', () => {
    process.env.WEFT_LOG_LEVEL = '';
    process.env.OTEL_LOG_LEVEL = 'none';
    const logger = recordingLogger();
    handle = register({ instrumentations: [], flushOnExit: false, logger });
    register({ instrumentations: [] }); // warns that it was called twice, unless the level is none
    expect(logger.lines).toEqual([]);
  });

  it('say once, not at every export, that the service answered a 200 it could not read', async () => {
    receiver = await startOtlpReceiver({ reply: () => ({ status: 200, body: '{not json' }) });
    const logger = recordingLogger();
    handle = register({ baseUrl: receiver.url, project: 'acme/odd-answer', instrumentations: [], flushOnExit: false, logger });
    for (let i = 0; i < 3; i++) {
      trace.getTracer('t').startSpan(`s${i}`).end();
      await handle.forceFlush();
    }
    expect(receiver.requests).toHaveLength(3);
    const warnings = logger.lines.filter((line) => /answer|deserialize|response/i.test(line));
    expect(warnings).toHaveLength(1);
    expect(handle.stats).toMatchObject({ spansExported: 3, spansDropped: 0 });
  });
});

describe('the ES module and CommonJS copies of weft in one process', () => {
  it("route the other copy's ops to a register({ global: false }) made by one", async () => {
    receiver = await startOtlpReceiver();
    const result = await runNode(['test/register/fixtures/dual-copies.mjs'], { WEFT_BASE_URL: receiver.url, WEFT_PROJECT: 'acme/copies' });
    expect(result.stdout, result.stderr).toContain('copies differ: true');
    expect(receiver.spans().map((s) => s.name)).toEqual(['fromTheOtherCopy']);
  });
});

describe('the headers option', () => {
  it('refuses a header value with a line break at register(), naming the option and not the value', () => {
    const error = configError(() =>
      register({ baseUrl: 'http://127.0.0.1:9', project: 'a/b', instrumentations: [], headers: { 'x-proxy-token': 'abc\r\ndef' } }),
    );
    expect(error.option).toBe('headers');
    expect(error.message).toContain('x-proxy-token');
    expect(error.message).not.toContain('abc');
  });

  it('refuses an invalid header name', () => {
    const error = configError(() => register({ baseUrl: 'http://127.0.0.1:9', project: 'a/b', instrumentations: [], headers: { 'bad name': 'v' } }));
    expect(error.option).toBe('headers');
  });

  it('sends valid extra headers', async () => {
    receiver = await startOtlpReceiver();
    handle = register({ baseUrl: receiver.url, project: 'a/b', instrumentations: [], flushOnExit: false, headers: { 'x-proxy-token': 'abc' } });
    trace.getTracer('t').startSpan('with-header').end();
    await handle.forceFlush();
    expect(receiver.requests[0]?.headers['x-proxy-token']).toBe('abc');
  });
});
