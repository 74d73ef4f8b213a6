import { DiagLogLevel, diag } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client, type ClientOptions, WeftNotFoundError } from 'weft';
import { type DevService, startDevService } from 'weft/dev';
import { configError } from '../helpers/config-error.js';

// The connection settings as `new Client()` resolves them (register() resolves them the same way; see
// test/register/configuration.test.ts).

const KEY = 'sk-never-print-me-4321';
const VARIABLES = ['WEFT_BASE_URL', 'WEFT_INFERENCE_BASE_URL', 'WEFT_TRAINING_BASE_URL', 'WEFT_PROJECT', 'WEFT_API_KEY', 'WEFT_LOG_LEVEL'];

afterEach(() => {
  for (const name of VARIABLES) delete process.env[name];
});

describe('new Client() refuses connection options of the wrong type from plain JavaScript', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['apiKey', { apiKey: 12345678 }],
    ['project', { project: 42 }],
    ['baseUrl', { baseUrl: 42 }],
    ['inferenceBaseUrl', { inferenceBaseUrl: 4780 }],
    ['trainingBaseUrl', { trainingBaseUrl: ['http://127.0.0.1:4780/v1'] }],
  ];
  for (const [option, options] of cases) {
    it(`names \`${option}\` and says a string was expected`, () => {
      const error = configError(() => new Client(options));
      expect(error.option).toBe(option);
      expect(error.message).toContain(`\`${option}\``);
      expect(error.message).toContain('must be a string');
    });
  }

  it('does not repeat a key given as a number', () => {
    expect(configError(() => new Client({ apiKey: 12345678 as unknown as string })).message).not.toContain('12345678');
  });
});

describe("new Client() refuses openai's spelling of an option, which it would otherwise leave unread", () => {
  const cases: [string, string, string][] = [
    ['baseURL', 'baseUrl', ' (env WEFT_BASE_URL)'],
    ['inferenceBaseURL', 'inferenceBaseUrl', ' (env WEFT_INFERENCE_BASE_URL)'],
    ['trainingBaseURL', 'trainingBaseUrl', ' (env WEFT_TRAINING_BASE_URL)'],
    ['timeout', 'timeoutMs', ''],
  ];
  for (const [other, own, env] of cases) {
    it(`names \`${own}\` for \`${other}\``, () => {
      const error = configError(() => new Client({ [other]: other === 'timeout' ? 5000 : 'http://127.0.0.1:5000' } as ClientOptions));
      expect(error.option).toBe(own);
      expect(error.message).toBe(`weft: there is no option \`${other}\`; weft's is \`${own}\`${env}.`);
    });
  }

  it('takes weft\'s own when both are given, as an object shared with openai\'s client may have them', async () => {
    const client = new Client({ baseUrl: 'http://127.0.0.1:5000', baseURL: 'http://127.0.0.1:6000' } as ClientOptions);
    expect(client.baseUrls.trace).toBe('http://127.0.0.1:5000');
    await client.close();
  });
});

describe('new Client() and WEFT_LOG_LEVEL, the level of its warnings while the app has no diagnostic logger', () => {
  it('refuses a name that is no level, naming the variable and the names it takes', () => {
    process.env.WEFT_LOG_LEVEL = 'loud';
    const error = configError(() => new Client());
    expect(error.envVar).toBe('WEFT_LOG_LEVEL');
    expect(error.message).toContain('one of none, error, warn, info, debug, verbose, all; got "loud"');
  });
});

describe('a service on this machine', () => {
  it('is a host in 127.0.0.0/8, localhost or ::1, not any name that starts with "127."', () => {
    // A project may be left out only for a service on this machine.
    for (const baseUrl of ['http://127.0.0.1:4780', 'http://127.8.9.10', 'http://localhost:1', 'http://[::1]:4780']) {
      expect(new Client({ baseUrl }).project.id, baseUrl).toBe('local/default');
    }
    for (const baseUrl of ['http://127.evil.example:4780', 'http://127.0.0.1.example.com']) {
      expect(configError(() => new Client({ baseUrl, apiKey: KEY })).message, baseUrl).toContain('is required');
    }
  });

  it('is not a host named 127.something, to which a key over plain http gets a warning', async () => {
    const lines: string[] = [];
    const keep = (...args: unknown[]) => lines.push(args.join(' '));
    diag.setLogger({ error: keep, warn: keep, info: keep, debug: keep, verbose: keep }, DiagLogLevel.WARN);
    try {
      await new Client({ baseUrl: 'http://127.evil.example:4780', project: 'a/b', apiKey: KEY }).close();
    } finally {
      diag.disable();
    }
    expect(lines.join('\n')).toContain('unencrypted');
    expect(lines.join('\n')).not.toContain(KEY);
  });
});

describe('WEFT_BASE_URL alone, pointing at a `weft dev` on another port', () => {
  let dev: DevService;
  beforeAll(async () => {
    dev = await startDevService({ port: 0, log: false });
  });
  afterAll(() => dev.close());

  it('sends the inference and training clients to the same `weft dev`', async () => {
    process.env.WEFT_BASE_URL = dev.url;
    const client = new Client({ maxRetries: 0 });
    try {
      expect(client.baseUrls).toEqual({ trace: dev.url, inference: `${dev.url}/v1`, training: `${dev.url}/training/v1` });
      expect((await client.inference.models.list()).data.length).toBeGreaterThan(0);
      // Answered by the training service (an unknown job), not refused at the connection.
      await expect(client.training.jobs.get('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(WeftNotFoundError);
    } finally {
      await client.close();
    }
  });

  it('and so does the `baseUrl` option', () => {
    expect(new Client({ baseUrl: dev.url }).baseUrls).toMatchObject({ inference: `${dev.url}/v1`, training: `${dev.url}/training/v1` });
  });

  it('gives way to WEFT_INFERENCE_BASE_URL and WEFT_TRAINING_BASE_URL when they are set', () => {
    process.env.WEFT_BASE_URL = dev.url;
    process.env.WEFT_INFERENCE_BASE_URL = 'http://127.0.0.1:9/inference';
    process.env.WEFT_TRAINING_BASE_URL = 'https://training.example.com/v1';
    expect(new Client().baseUrls).toMatchObject({ inference: 'http://127.0.0.1:9/inference', training: 'https://training.example.com/v1' });
  });

  it('derives nothing from a trace service on another host, where the hosted services live apart', () => {
    process.env.WEFT_BASE_URL = 'https://trace.example.com';
    process.env.WEFT_PROJECT = 'acme/app';
    expect(new Client().baseUrls).toMatchObject({ inference: 'http://127.0.0.1:4780/v1', training: 'http://127.0.0.1:4780/training/v1' });
  });
});
