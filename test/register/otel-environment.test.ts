import { fileURLToPath } from 'node:url';
import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { register, type WeftHandle } from 'weft';
import { runNode } from '../helpers/child.js';
import { configError } from '../helpers/config-error.js';
import { HELLO, type OpenAIServer, startOpenAIServer } from '../helpers/openai-server.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { recordingLogger } from '../helpers/recording-logger.js';

// OpenTelemetry's standard variables, as register() reads them: OTEL_SDK_DISABLED, OTEL_BSP_*, OTEL_PROPAGATORS.

const BSP_VARIABLES = ['OTEL_BSP_SCHEDULE_DELAY', 'OTEL_BSP_EXPORT_TIMEOUT', 'OTEL_BSP_MAX_QUEUE_SIZE', 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE'];

/** The fixture's report, from its last line (weft's info line may come before it on stdout). */
function report(stdout: string): Record<string, unknown> {
  const line = /^report (.*)$/m.exec(stdout);
  if (!line) throw new Error(`the fixture printed no report:\n${stdout}`);
  return JSON.parse(line[1]!) as Record<string, unknown>;
}

let receiver: OtlpReceiver | undefined;
let server: OpenAIServer | undefined;
let weft: WeftHandle | undefined;
afterEach(async () => {
  await weft?.shutdown();
  weft = undefined;
  for (const name of [...BSP_VARIABLES, 'OTEL_PROPAGATORS']) delete process.env[name];
  await server?.close();
  server = undefined;
  await receiver?.close();
  receiver = undefined;
});

describe('OTEL_SDK_DISABLED=true', () => {
  it.each(['true', 'TRUE'])('(%s) makes register() set up nothing, export nothing, and return a handle that does nothing', async (value) => {
    receiver = await startOtlpReceiver();
    server = await startOpenAIServer(HELLO);
    const fixture = fileURLToPath(new URL('fixtures/sdk-disabled.cjs', import.meta.url));
    const result = await runNode([fixture], {
      OTEL_SDK_DISABLED: value,
      WEFT_BASE_URL: receiver.url,
      WEFT_LOG_LEVEL: 'info',
      OPENAI_BASE_URL: server.baseURL,
      OPENAI_API_KEY: 'sk-disabled',
    });
    expect(result.code).toBe(0);
    expect(report(result.stdout)).toEqual({
      globalProviderRecords: false,
      openaiPatched: false,
      exitHooksAdded: false,
      isGlobal: false,
      stats: { spansEnded: 0, spansExported: 0, spansDropped: 0, exportFailures: 0, spansQueued: 0 },
      droppedSpans: 0,
      instrumentations: 0,
      sameHandleAgain: true,
    });
    // Said once, at info level.
    expect(`${result.stdout}${result.stderr}`.match(/OTEL_SDK_DISABLED/g) ?? []).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
    expect(receiver.requests).toHaveLength(0);
  });

  it.each(['false', '1', 'yes'])('is not read as disabled from %s: the same app is traced and exported', async (value) => {
    receiver = await startOtlpReceiver();
    server = await startOpenAIServer(HELLO);
    const fixture = fileURLToPath(new URL('fixtures/sdk-disabled.cjs', import.meta.url));
    const result = await runNode([fixture], {
      OTEL_SDK_DISABLED: value,
      WEFT_BASE_URL: receiver.url,
      OPENAI_BASE_URL: server.baseURL,
      OPENAI_API_KEY: 'sk-disabled',
    });
    expect(result.code).toBe(0);
    expect(report(result.stdout)).toMatchObject({ globalProviderRecords: true, openaiPatched: true, isGlobal: true });
    expect(receiver.spans().map((s) => s.name).sort()).toEqual(['chat disabled', 'manual', 'work']);
    // A value that is neither true nor false was meant as something: said once; `false` is said nowhere.
    const said = `${result.stdout}${result.stderr}`.match(/OTEL_SDK_DISABLED must be true or false/g) ?? [];
    expect(said).toHaveLength(value === 'false' ? 0 : 1);
  });
});

describe('OTEL_BSP_* variables', () => {
  /** Ends five spans and flushes: the requests the receiver got say how they were batched. */
  async function endFiveSpansAndFlush(handle: WeftHandle): Promise<void> {
    const tracer = handle.tracerProvider.getTracer('t');
    for (let i = 0; i < 5; i++) tracer.startSpan(`span-${i}`).end();
    await handle.forceFlush();
  }

  function start(batch?: Record<string, number>): WeftHandle {
    weft = register({
      baseUrl: receiver?.url,
      project: 'acme/bsp',
      instrumentations: [],
      flushOnExit: false,
      logger: false,
      global: false,
      ...(batch ? { batch } : {}),
    });
    return weft;
  }

  it('are the defaults of the batch options: OTEL_BSP_MAX_EXPORT_BATCH_SIZE sets how many spans go in one request', async () => {
    receiver = await startOtlpReceiver();
    process.env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE = '2';
    process.env.OTEL_BSP_SCHEDULE_DELAY = '60000';
    const handle = start();
    await endFiveSpansAndFlush(handle);
    expect(receiver.requests.map((r) => r.spans.length)).toEqual([2, 2, 1]);
  });

  it('give way to the options', async () => {
    receiver = await startOtlpReceiver();
    process.env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE = '2';
    process.env.OTEL_BSP_MAX_QUEUE_SIZE = 'not a number';
    const handle = start({ maxExportBatchSize: 5, maxQueueSize: 100 });
    await endFiveSpansAndFlush(handle);
    expect(receiver.requests.map((r) => r.spans.length)).toEqual([5]);
  });

  it('bound the queue, and so the batch size, as OTEL_BSP_MAX_QUEUE_SIZE says', async () => {
    receiver = await startOtlpReceiver();
    process.env.OTEL_BSP_MAX_QUEUE_SIZE = '2';
    process.env.OTEL_BSP_SCHEDULE_DELAY = '60000';
    const handle = start();
    await endFiveSpansAndFlush(handle);
    const sizes = receiver.requests.map((r) => r.spans.length);
    expect(Math.max(...sizes)).toBe(2);
    expect(handle.stats.spansExported + handle.stats.spansDropped).toBe(5);
  });

  it.each(
    BSP_VARIABLES.flatMap((name): [string, string][] => [
      [name, 'soon'],
      [name, '-5'],
      [name, '1.5'],
      // 0 is "export at once" to OTel's batch processor; a queue, a batch or a timeout of 0 would export nothing.
      ...(name === 'OTEL_BSP_SCHEDULE_DELAY' ? [] : [[name, '0'] as [string, string]]),
    ]),
  )('ignores %s=%s, which other OTel libraries read too, warning once that weft uses its default', async (name, value) => {
    process.env[name] = value;
    receiver = await startOtlpReceiver();
    const logger = recordingLogger();
    weft = register({ baseUrl: receiver.url, project: 'acme/bsp', instrumentations: [], flushOnExit: false, logger });
    const said = logger.lines.filter((line) => line.includes(name));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`ignoring ${name}="${value}"`);
    expect(said[0]).toMatch(/expected (a positive integer|a whole number, 0 or more)/);
    expect(said[0]).toContain("weft's default");
    weft.tracerProvider.getTracer('t').startSpan('still-exported').end();
    await weft.forceFlush();
    expect(receiver.spans().map((s) => s.name)).toEqual(['still-exported']);
  });

  it('refuses the same values given as options in code', () => {
    const error = configError(() => register({ project: 'acme/bsp', batch: { exportTimeoutMillis: 0 }, instrumentations: [], flushOnExit: false, logger: false }));
    expect(error.option).toBe('batch.exportTimeoutMillis');
    expect(error.message).toContain('must be a positive integer');
  });

  it('counts a blank value as unset', () => {
    process.env.OTEL_BSP_SCHEDULE_DELAY = ' ';
    start();
  });
});

describe('OTEL_PROPAGATORS', () => {
  function injected(): string[] {
    const carrier: Record<string, string> = {};
    const span = trace.getTracer('t').startSpan('outer');
    const ctx = propagation.setBaggage(trace.setSpan(ROOT_CONTEXT, span), propagation.createBaggage({ user: { value: 'u1' } }));
    context.with(ctx, () => propagation.inject(context.active(), carrier));
    span.end();
    return Object.keys(carrier).sort();
  }

  async function startGlobal(): Promise<void> {
    receiver = await startOtlpReceiver();
    weft = register({ baseUrl: receiver.url, project: 'acme/propagators', instrumentations: [], flushOnExit: false, logger: false });
    expect(weft.isGlobal).toBe(true);
  }

  it('installs trace context and baggage by default', async () => {
    await startGlobal();
    expect(injected()).toEqual(['baggage', 'traceparent']);
  });

  it('installs only those named', async () => {
    process.env.OTEL_PROPAGATORS = 'tracecontext';
    await startGlobal();
    expect(injected()).toEqual(['traceparent']);
  });

  it('installs none for none', async () => {
    process.env.OTEL_PROPAGATORS = 'none';
    await startGlobal();
    expect(injected()).toEqual([]);
  });

  it('warns of the names weft has no propagator for, and installs the others', async () => {
    process.env.OTEL_PROPAGATORS = 'b3, tracecontext';
    const lines: string[] = [];
    const keep = (...args: unknown[]) => {
      lines.push(args.map(String).join(' '));
    };
    receiver = await startOtlpReceiver();
    weft = register({
      baseUrl: receiver.url,
      project: 'acme/propagators',
      instrumentations: [],
      flushOnExit: false,
      logger: { error: keep, warn: keep, info: keep, debug: keep, verbose: keep },
    });
    expect(injected()).toEqual(['traceparent']);
    expect(lines.join('\n')).toContain('OTEL_PROPAGATORS names b3');
  });
});
