import { type Span, trace } from '@opentelemetry/api';
import { AlwaysOnSampler, type Sampler, SamplingDecision } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { op, type RegisterOptions, register, type WeftHandle, weftInstrumentations, weftSpanProcessor } from 'weft';
import { configError } from '../helpers/config-error.js';
import { type OtlpReceiver, spanNamed, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { recordingLogger } from '../helpers/recording-logger.js';

const QUIET: RegisterOptions = { instrumentations: [], flushOnExit: false, logger: false };
const VARIABLES = [
  'OTEL_BSP_SCHEDULE_DELAY',
  'OTEL_RESOURCE_ATTRIBUTES',
  'WEFT_INFERENCE_BASE_URL',
  'WEFT_TRAINING_BASE_URL',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
];

let receiver: OtlpReceiver | undefined;
let weft: WeftHandle | undefined;
afterEach(async () => {
  await weft?.shutdown();
  weft = undefined;
  await receiver?.close();
  receiver = undefined;
  for (const name of VARIABLES) delete process.env[name];
});

async function startWith(options: RegisterOptions): Promise<WeftHandle> {
  receiver = await startOtlpReceiver();
  weft = register({ baseUrl: receiver.url, project: 'acme/guards', ...QUIET, ...options });
  return weft;
}

describe('OTEL_BSP_SCHEDULE_DELAY=0, which OTel takes as "export at once"', () => {
  it('is taken by register(), whose spans are exported', async () => {
    process.env.OTEL_BSP_SCHEDULE_DELAY = '0';
    const handle = await startWith({});
    handle.tracerProvider.getTracer('t').startSpan('right-away').end();
    await receiver?.waitForSpans(1);
    expect(receiver?.spans().map((s) => s.name)).toEqual(['right-away']);
  });

  it('is taken by weftSpanProcessor()', async () => {
    process.env.OTEL_BSP_SCHEDULE_DELAY = '0';
    const processor = weftSpanProcessor({ flushOnExit: false });
    await processor.shutdown();
  });

  it('is taken as an option in code too; a negative delay is not', async () => {
    await startWith({ batch: { scheduledDelayMillis: 0 } });
    const error = configError(() => weftSpanProcessor({ batch: { scheduledDelayMillis: -1 }, flushOnExit: false }));
    expect(error.option).toBe('batch.scheduledDelayMillis');
    expect(error.message).toContain('must be a whole number, 0 or more');
  });
});

describe('register() refuses an option it does not have, suggesting the one meant', () => {
  const cases: [Record<string, unknown>, string, string][] = [
    [{ projct: 'a/b' }, 'projct', 'did you mean `project` (env WEFT_PROJECT)?'],
    [{ timeoutMillis: 5 }, 'timeoutMillis', 'did you mean `exitFlushTimeoutMillis`?'],
    [{ samplr: new AlwaysOnSampler() }, 'samplr', 'did you mean `sampler`?'],
    [{ batch: { delay: 5 } }, 'batch.delay', 'did you mean `batch.scheduledDelayMillis`?'],
    [{ spanLimits: { attributeLengthLimit: 5 } }, 'spanLimits.attributeLengthLimit', 'did you mean `spanLimits.attributeValueLengthLimit`?'],
    // An option of new Client(), misspelt in a config object shared with it.
    [{ timeoutMS: 5 }, 'timeoutMS', 'did you mean `timeoutMs`?'],
    // Nothing near: the options it takes, not a wrong guess.
    [{ x: 1 }, 'x', 'it takes `apiKey`, `project`, `baseUrl`'],
  ];
  it.each(cases)('%j', (options, option, hint) => {
    const error = configError(() => register(options as RegisterOptions));
    expect(error.option).toBe(option);
    expect(error.message).toContain(`no option \`${option}\``);
    expect(error.message).toContain(hint);
  });

  it("gives openai's spellings their own message", () => {
    const error = configError(() => register({ baseURL: 'http://127.0.0.1:1' } as RegisterOptions));
    expect(error.message).toContain("there is no option `baseURL`; weft's is `baseUrl` (env WEFT_BASE_URL)");
    const inference = configError(() => register({ inferenceBaseURL: 'http://127.0.0.1:1/v1' } as RegisterOptions));
    expect(inference.message).toContain("weft's is `inferenceBaseUrl` (env WEFT_INFERENCE_BASE_URL)");
  });

  it('takes an option set to undefined as not given, and the options of new Client() in a shared config object', async () => {
    const shared = { project: 'acme/guards', inferenceBaseUrl: 'http://127.0.0.1:1/v1', timeoutMs: 5_000, maxRetries: 1 };
    const handle = await startWith({ ...shared, timeout: undefined } as RegisterOptions);
    expect(handle.project).toBe('acme/guards');
    const processor = weftSpanProcessor({ ...shared, flushOnExit: false } as Record<string, unknown>);
    await processor.shutdown();
  });

  it('and so does weftSpanProcessor()', () => {
    const error = configError(() => weftSpanProcessor({ serviceName: 'x' } as Record<string, unknown>));
    expect(error.message).toContain('weftSpanProcessor() has no option `serviceName`');
  });
});

describe('register({ sampler, spanLimits })', () => {
  it('samples with the sampler given', async () => {
    const dropSecrets: Sampler = {
      shouldSample: (_context, _traceId, name) => ({
        decision: name.startsWith('secret') ? SamplingDecision.NOT_RECORD : SamplingDecision.RECORD_AND_SAMPLED,
      }),
      toString: () => 'DropSecrets',
    };
    const handle = await startWith({ sampler: dropSecrets });
    const tracer = handle.tracerProvider.getTracer('t');
    for (const name of ['secret-step', 'kept-step']) tracer.startSpan(name).end();
    await handle.forceFlush();
    expect(receiver?.spans().map((s) => s.name)).toEqual(['kept-step']);
  });

  it("cuts weft's own contents to the attribute value length limit given, keeping the JSON valid", async () => {
    await startWith({ spanLimits: { attributeValueLengthLimit: 2000 } });
    const echo = op(async function echo(text: string) {
      return text;
    });
    await echo('x'.repeat(10_000));
    await weft?.forceFlush();
    const span = spanNamed(receiver?.spans() ?? [], 'echo');
    const inputs = span.attributes.inputs as string;
    expect(inputs.length).toBeLessThanOrEqual(2000);
    expect(JSON.parse(inputs)).toHaveProperty('text');
    expect(inputs).toContain('[weft: ');
    expect((span.attributes.output as string).length).toBeLessThanOrEqual(2000);
  });

  it('refuses a sampler that is none, and span limits that are not whole numbers', () => {
    expect(configError(() => register({ sampler: {} } as unknown as RegisterOptions)).message).toContain('must be a Sampler');
    const error = configError(() => register({ spanLimits: { attributeCountLimit: -1 } }));
    expect(error.option).toBe('spanLimits.attributeCountLimit');
    expect(error.message).toContain('must be a whole number, 0 or more, got -1');
  });
});

describe('boolean and number options of chat tracing are checked, not read as truthy', () => {
  it.each([
    [{ requestStreamUsage: 'no' }, 'requestStreamUsage', 'must be true or false, got a string'],
    [{ maxMessageLength: '300' }, 'maxMessageLength', 'got the string "300"'],
    [{ maxAttributeLength: true }, 'maxAttributeLength', 'got a boolean'],
  ])('%j', (options, option, expected) => {
    for (const run of [() => register(options as unknown as RegisterOptions), () => weftInstrumentations(options as never)]) {
      const error = configError(run);
      expect(error.option).toBe(option);
      expect(error.message).toContain(expected);
    }
  });
});

describe('routing set in two places is refused, pointing to the `project` and `apiKey` options', () => {
  it.each(['wandb.project', 'wandb.entity'])('resourceAttributes["%s"]', (name) => {
    const error = configError(() => register({ resourceAttributes: { [name]: 'other' } }));
    expect(error.option).toBe(`resourceAttributes.${name}`);
    expect(error.message).toContain('`project` option (env WEFT_PROJECT)');
  });

  it.each([
    ['Project_Id', '`project` option (env WEFT_PROJECT)'],
    ['project_id', '`project` option (env WEFT_PROJECT)'],
    ['authorization', '`apiKey` option (env WEFT_API_KEY)'],
    ['Authorization', '`apiKey` option (env WEFT_API_KEY)'],
  ])('headers["%s"], beside an API key', (name, pointer) => {
    const apiKey = 'test-key-0123456789';
    for (const run of [
      () => register({ apiKey, headers: { [name]: 'other/proj' }, ...QUIET }),
      () => weftSpanProcessor({ apiKey, headers: { [name]: 'other/proj' }, flushOnExit: false }),
    ]) {
      const error = configError(run);
      expect(error.option).toBe('headers');
      expect(error.message).toContain(`must not set "${name}"`);
      expect(error.message).toContain(pointer);
    }
  });

  it('sends an Authorization of the app\'s own when no API key is set (a service that wants another scheme)', async () => {
    delete process.env.WEFT_API_KEY;
    const handle = await startWith({ headers: { Authorization: 'Basic YXBpOnRlc3Qta2V5' } });
    handle.tracerProvider.getTracer('t').startSpan('basic-auth').end();
    await handle.forceFlush();
    const raw = receiver?.requests[0]?.rawHeaders ?? [];
    const authorizations = raw.filter((_value, i) => i % 2 === 1 && raw[i - 1]!.toLowerCase() === 'authorization');
    expect(authorizations).toEqual(['Basic YXBpOnRlc3Qta2V5']);
  });

  it("says that the app's own Authorization was refused, when the service answers 401 to it", async () => {
    delete process.env.WEFT_API_KEY;
    const logger = recordingLogger();
    receiver = await startOtlpReceiver({ reply: () => ({ status: 401 }) });
    const handle = register({ baseUrl: receiver.url, project: 'acme/guards', ...QUIET, logger, headers: { Authorization: 'Basic bm90LWFjY2VwdGVk' } });
    weft = handle;
    handle.tracerProvider.getTracer('t').startSpan('refused').end();
    await handle.forceFlush();
    expect(logger.lines.join('\n')).toContain('The Authorization header given in the `headers` option was not accepted.');
  });

  it('leaves the resource, the header and the handle agreeing on one project', async () => {
    const handle = await startWith({ project: 'acme/one', resourceAttributes: { team: 'search' } });
    handle.tracerProvider.getTracer('t').startSpan('routed').end();
    await handle.forceFlush();
    const [request] = receiver?.requests ?? [];
    expect(request?.headers.project_id).toBe('acme/one');
    expect(request?.spans[0]?.resource).toMatchObject({ 'wandb.entity': 'acme', 'wandb.project': 'one', team: 'search' });
    expect(handle.project).toBe('acme/one');
  });
});

describe('a malformed OTEL_RESOURCE_ATTRIBUTES, which OTel drops whole', () => {
  it('is warned about once, naming the variable and what was expected, without quoting it', async () => {
    process.env.OTEL_RESOURCE_ATTRIBUTES = 'good=1,k';
    const logger = recordingLogger();
    await startWith({ logger });
    const said = logger.lines.filter((line) => line.includes('OTEL_RESOURCE_ATTRIBUTES'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('entry 2 of 2');
    expect(said[0]).toContain('key=value');
    expect(said[0]).not.toContain('good=1');
  });

  it('is not, when every entry reads', async () => {
    process.env.OTEL_RESOURCE_ATTRIBUTES = 'good=1, team=a%2Cb, wandb.project=guards';
    const logger = recordingLogger();
    await startWith({ logger });
    expect(logger.lines.join('\n')).not.toContain('OTEL_RESOURCE_ATTRIBUTES');
  });
});

describe('OTEL_RESOURCE_ATTRIBUTES naming another project than weft routes to', () => {
  it('is warned about once, saying where the spans go, which is where the resource says', async () => {
    process.env.OTEL_RESOURCE_ATTRIBUTES = 'team=a,wandb.project=elsewhere';
    const logger = recordingLogger();
    const handle = await startWith({ logger });
    handle.tracerProvider.getTracer('t').startSpan('routed').end();
    await handle.forceFlush();
    const said = logger.lines.filter((line) => line.includes('OTEL_RESOURCE_ATTRIBUTES'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('sets wandb.project, which weft sets from its project');
    expect(said[0]).toContain('spans go to acme/guards');
    expect(receiver?.requests[0]?.spans[0]?.resource).toMatchObject({ 'wandb.entity': 'acme', 'wandb.project': 'guards', team: 'a' });
  });
});

describe("OTel's OTLP endpoint variable, which configures an OTel SDK's exporter and not weft's", () => {
  it('is not warned of when weft has an address of its own', async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = 'http://collector.example:4318';
    const logger = recordingLogger();
    await startWith({ logger });
    expect(logger.lines.join('\n')).not.toContain('OTEL_EXPORTER_OTLP_ENDPOINT');
  });

  it('is warned of once when weft, with no address of its own, sends to the local weft dev instead', async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = 'http://collector.example:4318';
    const logger = recordingLogger();
    weft = register({ ...QUIET, logger, global: false });
    const said = logger.lines.filter((line) => line.includes('OTEL_EXPORTER_OTLP_ENDPOINT'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('they go to the local weft dev at http://127.0.0.1:4780');
    expect(said[0]).toContain('Set WEFT_BASE_URL');
  });
});

describe('WEFT_INFERENCE_BASE_URL and WEFT_TRAINING_BASE_URL, which chat tracing reads', () => {
  it.each(['WEFT_INFERENCE_BASE_URL', 'WEFT_TRAINING_BASE_URL'])('%s=garbage is refused by register(), as a bad WEFT_BASE_URL is', (name) => {
    process.env[name] = 'garbage';
    const error = configError(() => register(QUIET));
    expect(error.envVar).toBe(name);
    expect(error.message).toContain(`env ${name}`);
    expect(error.message).toContain('must be an http:// or https:// URL, got "garbage"');
    // Nothing started.
    expect(trace.getTracerProvider().getTracer('t').startSpan('x') as Span).not.toHaveProperty('_spanProcessor');
  });
});
