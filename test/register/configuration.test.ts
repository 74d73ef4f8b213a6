import { type DiagLogger, ProxyTracerProvider, trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { type RegisterOptions, register, weftInstrumentations } from 'weft';
import { configError } from '../helpers/config-error.js';

const KEY = 'sk-never-print-me-1234';

/** A diagnostic logger that keeps what it was told, so tests read exactly what a user would see. */
function recordingLogger(): DiagLogger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (...args: unknown[]) => {
    lines.push(args.map(String).join(' '));
  };
  return { lines, error: keep, warn: keep, info: keep, debug: keep, verbose: keep };
}

afterEach(() => {
  for (const name of ['WEFT_PROJECT', 'WEFT_BASE_URL', 'WEFT_API_KEY']) delete process.env[name];
});

describe('register() rejects bad configuration with an error that says what to fix', () => {
  it('names the option and the variable when the project has no slash', () => {
    const error = configError(() => register({ project: 'support-bot', apiKey: KEY }));
    expect(error.option).toBe('project');
    expect(error.envVar).toBe('WEFT_PROJECT');
    expect(error.message).toContain('entity/project');
    expect(error.message).toContain('WEFT_PROJECT');
    expect(error.message).not.toContain(KEY);
  });

  it('reads a bad project from WEFT_PROJECT the same way', () => {
    process.env.WEFT_PROJECT = 'a/b/c';
    const error = configError(() => register());
    expect(error.message).toContain('"a/b/c"');
  });

  it('names WEFT_BASE_URL when the base URL is not http(s)', () => {
    process.env.WEFT_BASE_URL = 'ftp://example.com';
    const error = configError(() => register({ apiKey: KEY }));
    expect(error.option).toBe('baseUrl');
    expect(error.message).toContain('WEFT_BASE_URL');
    expect(error.message).toContain('http:// or https://');
  });

  it('refuses a base URL that is not a URL at all', () => {
    expect(configError(() => register({ baseUrl: 'trace.example.com' })).message).toContain('"trace.example.com"');
  });

  it('requires a project for a service on another machine', () => {
    const error = configError(() => register({ baseUrl: 'https://trace.example.com', apiKey: KEY }));
    expect(error.message).toContain('is required');
    expect(error.message).not.toContain(KEY);
  });

  it('refuses an API key with whitespace without repeating it', () => {
    const error = configError(() => register({ apiKey: `${KEY} extra` }));
    expect(error.envVar).toBe('WEFT_API_KEY');
    expect(error.message).not.toContain(KEY);
  });

  it('refuses batch settings that are not positive integers', () => {
    expect(configError(() => register({ batch: { maxQueueSize: 0 } })).option).toBe('batch.maxQueueSize');
  });

  it('starts nothing when the configuration is bad', () => {
    configError(() => register({ project: 'nope' }));
    const weft = register({ instrumentations: [], flushOnExit: false });
    expect(weft.isGlobal).toBe(true);
    return weft.shutdown();
  });
});

describe('register() refuses options of the wrong type from plain JavaScript, naming the option', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['baseUrl', { baseUrl: 42 }, 'a string'],
    ['project', { project: 42 }, 'a string'],
    ['apiKey', { apiKey: 12345678 }, 'a string'],
    ['serviceName', { serviceName: 5 }, 'a string'],
    ['instrumentations', { instrumentations: 'openai' }, 'an array'],
    ['instrumentations[1][0]', { instrumentations: [[], ['openai'], 5] }, 'an instrumentation'],
    ['resourceAttributes', { resourceAttributes: 'x=y' }, 'an object'],
    ['resourceAttributes.team', { resourceAttributes: { team: { name: 'x' } } }, 'a string, number or boolean'],
    ['batch', { batch: 5 }, 'an object'],
    ['batch.maxQueueSize', { batch: { maxQueueSize: '10' } }, 'a positive integer'],
    ['spanProcessors', { spanProcessors: {} }, 'an array'],
    ['flushOnExit', { flushOnExit: 'no' }, 'true or false'],
    ['logger', { logger: console.log }, 'false or a DiagLogger'],
  ];
  for (const [option, options, expected] of cases) {
    it(`${option}: ${JSON.stringify(options)}`, () => {
      const error = configError(() => register(options as RegisterOptions));
      expect(error.option).toBe(option);
      expect(error.message).toContain(`\`${option}\``);
      expect(error.message).toContain(`must be ${expected}`);
    });
  }

  it('names the variables of the options that have one', () => {
    expect(configError(() => register({ baseUrl: 42 } as unknown as RegisterOptions)).message).toContain('WEFT_BASE_URL');
    expect(configError(() => register({ serviceName: 5 } as unknown as RegisterOptions)).envVar).toBe('OTEL_SERVICE_NAME');
  });

  it('refuses content options next to a list of instrumentations, which they would not reach, and says where they go', () => {
    const instrumentations = weftInstrumentations();
    const error = configError(() => register({ captureContent: 'none', instrumentations }));
    expect(error.option).toBe('captureContent');
    expect(error.envVar).toBe('WEFT_CAPTURE_CONTENT');
    expect(error.message).toContain('weftInstrumentations({ captureContent })');
    const redact = configError(() => register({ redactContent: () => null, instrumentations }));
    expect(redact.option).toBe('redactContent');
    expect(redact.message).toContain('weftInstrumentations({ redactContent })');
  });

  it('refuses a content option of the wrong value, naming it, before anything starts', () => {
    const error = configError(() => register({ captureContent: 'sometimes' } as unknown as RegisterOptions));
    expect(error.option).toBe('captureContent');
    expect(error.envVar).toBe('WEFT_CAPTURE_CONTENT');
    const delegate = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate();
    expect(delegate.constructor).toBe(new ProxyTracerProvider().getDelegate().constructor);
  });

  it('refuses a WEFT_CAPTURE_CONTENT it cannot read before it sets the global provider, which a fixed value may then take', () => {
    const before = process.env.WEFT_CAPTURE_CONTENT;
    process.env.WEFT_CAPTURE_CONTENT = 'sometimes';
    try {
      expect(configError(() => register({ baseUrl: 'http://127.0.0.1:9', flushOnExit: false })).envVar).toBe('WEFT_CAPTURE_CONTENT');
      const delegate = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate();
      expect(delegate.constructor).toBe(new ProxyTracerProvider().getDelegate().constructor);
    } finally {
      if (before === undefined) delete process.env.WEFT_CAPTURE_CONTENT;
      else process.env.WEFT_CAPTURE_CONTENT = before;
    }
  });

  it('does not repeat a key given as a number', () => {
    expect(configError(() => register({ apiKey: 12345678 } as unknown as RegisterOptions)).message).not.toContain('12345678');
  });
});

describe('a base URL whose host only starts with "127."', () => {
  // The warning about a key in clear text is said once per process: see test/config/connection.test.ts.
  it('is another machine: a project is required, as for any remote service', () => {
    const error = configError(() => register({ baseUrl: 'http://127.evil.example:4780', instrumentations: [] }));
    expect(error.option).toBe('project');
  });
});

describe('register() and the key on the wire', () => {
  it('warns that a key would travel unencrypted over plain http to another host', async () => {
    const logger = recordingLogger();
    const weft = register({ baseUrl: 'http://trace.example.com', project: 'a/b', apiKey: KEY, instrumentations: [], flushOnExit: false, logger });
    await weft.shutdown();
    const printed = logger.lines.join('\n');
    expect(printed).toContain('unencrypted');
    expect(printed).not.toContain(KEY);
  });
});

describe('register() next to another tracer provider', () => {
  it('leaves a foreign global provider in place and says how to add weft to it', async () => {
    const logger = recordingLogger();
    const foreign = new BasicTracerProvider();
    trace.setGlobalTracerProvider(foreign);

    const weft = register({ instrumentations: [], flushOnExit: false, logger });
    expect(weft.isGlobal).toBe(false);
    expect((trace.getTracerProvider() as unknown as { getDelegate(): unknown }).getDelegate()).toBe(foreign);
    // Followed as written, it gives a working setup (own-provider.test.ts): openai calls need the instrumentations.
    const warning = logger.lines.join('\n');
    for (const part of ['WeftContextSpanProcessor', 'weftSpanProcessor()', 'weftInstrumentations()', 'instead of calling register()']) {
      expect(warning).toContain(part);
    }

    await weft.shutdown();
    trace.disable();
  });

  it('knows the API\'s no-op provider by identity, so a minifier renaming its class does not matter', async () => {
    // What a bundler with name mangling does to the class of the provider that is there when nothing is registered.
    const noopClass = new ProxyTracerProvider().getDelegate().constructor;
    const name = Object.getOwnPropertyDescriptor(noopClass, 'name');
    Object.defineProperty(noopClass, 'name', { value: 'a', configurable: true });
    try {
      const logger = recordingLogger();
      const weft = register({ instrumentations: [], flushOnExit: false, logger });
      expect(weft.isGlobal).toBe(true);
      expect(logger.lines.join('\n')).not.toContain('weftSpanProcessor()');
      await weft.shutdown();
    } finally {
      if (name) Object.defineProperty(noopClass, 'name', name);
    }
  });
});

describe('register() called again', () => {
  it('returns the first handle and says which options of the second call were not applied', async () => {
    const logger = recordingLogger();
    const weft = register({ project: 'acme/first', instrumentations: [], logger, flushOnExit: false });
    try {
      const again = register({ project: 'acme/second', apiKey: KEY, serviceName: undefined });
      expect(again).toBe(weft);
      const said = logger.lines.join('\n');
      expect(said).toContain("this call's `project`, `apiKey` were not applied");
      expect(said).toContain('spans go to acme/first at http://127.0.0.1:4780/otel/v1/traces');
      expect(said).not.toContain('serviceName');
      expect(said).not.toContain(KEY);
    } finally {
      await weft.shutdown();
    }
  });

  it('names no option that repeats the first registration, and warns of nothing when none is left', async () => {
    const logger = recordingLogger();
    const attributes = { team: 'search', tier: 2 };
    const weft = register({ project: 'acme/first', instrumentations: [], logger, flushOnExit: false, resourceAttributes: attributes });
    try {
      // Two modules of one app that each register with the same settings.
      register({ project: 'acme/first', instrumentations: [], flushOnExit: false, resourceAttributes: { team: 'search', tier: 2 } });
      expect(logger.lines.filter((line) => line.includes('called again'))).toEqual([]);
      register({ project: 'acme/first', serviceName: 'other', resourceAttributes: { team: 'ads', tier: 2 } });
      const warned = logger.lines.filter((line) => line.includes('called again')).join('\n');
      expect(warned).toContain("this call's `serviceName`, `resourceAttributes` were not applied");
      expect(warned).not.toContain('`project`');
    } finally {
      await weft.shutdown();
    }
  });

  it('takes an option the first call left to its variable as applied when it repeats it, and never throws on options it cannot compare', async () => {
    const logger = recordingLogger();
    const instrumentations = weftInstrumentations();
    process.env.WEFT_API_KEY = KEY;
    try {
      const weft = register({ project: 'acme/first', instrumentations, logger, flushOnExit: false });
      try {
        // The key from the same variable, and the same instrumentation in a new list.
        register({ project: 'acme/first', apiKey: process.env.WEFT_API_KEY, instrumentations: [...instrumentations] });
        expect(logger.lines.filter((line) => line.includes('called again'))).toEqual([]);
        const cyclic: Record<string, unknown> = { team: 'a' };
        cyclic.self = cyclic;
        expect(register({ project: 'acme/first', resourceAttributes: cyclic as never, batch: { maxQueueSize: 10n as never } })).toBe(weft);
        expect(logger.lines.join('\n')).toContain("this call's `resourceAttributes`, `batch` were not applied");
      } finally {
        await weft.shutdown();
      }
    } finally {
      delete process.env.WEFT_API_KEY;
    }
  });
});
