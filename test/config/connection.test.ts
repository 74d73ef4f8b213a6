import { DiagLogLevel, diag } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, WeftConfigError } from 'weft';

// The connection settings as `new Client()` resolves them (register() resolves them the same way; see
// test/register/configuration.test.ts).

const KEY = 'sk-never-print-me-4321';
const VARIABLES = ['WEFT_BASE_URL', 'WEFT_INFERENCE_BASE_URL', 'WEFT_TRAINING_BASE_URL', 'WEFT_PROJECT', 'WEFT_API_KEY'];

afterEach(() => {
  for (const name of VARIABLES) delete process.env[name];
});

function configError(run: () => unknown): WeftConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof WeftConfigError) return error;
    throw error;
  }
  throw new Error('expected a WeftConfigError');
}

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
