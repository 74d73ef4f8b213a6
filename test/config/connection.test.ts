import { afterEach, describe, expect, it } from 'vitest';
import { Client, WeftConfigError } from 'weft';

// The connection settings as `new Client()` resolves them (register() resolves them the same way; see
// test/register/configuration.test.ts).

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
