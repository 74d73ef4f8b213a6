import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type RegisterOptions, register, weftSpanProcessor } from 'weft';
import { runNode } from '../helpers/child.js';
import { configError } from '../helpers/config-error.js';

// An API key pasted into the wrong variable (or into the base URL) is quoted by no configuration error.

const KEY = 'sk-weft-RECOGNISABLE-7f3a9c';
const FIXTURE = fileURLToPath(new URL('fixtures/op-calls-openai.cjs', import.meta.url));
const MISPLACED: [string, Record<string, string>][] = [
  ['the key in an unparseable WEFT_BASE_URL', { WEFT_API_KEY: KEY, WEFT_BASE_URL: `https://user:${KEY}@trace.example.com:99999` }],
  ['the key pasted into WEFT_PROJECT', { WEFT_API_KEY: KEY, WEFT_BASE_URL: 'https://trace.example.com', WEFT_PROJECT: KEY }],
  ['the key pasted into WEFT_LOG_LEVEL', { WEFT_API_KEY: KEY, WEFT_LOG_LEVEL: KEY }],
];

afterEach(() => {
  for (const name of ['WEFT_API_KEY', 'WEFT_BASE_URL', 'WEFT_PROJECT', 'WEFT_LOG_LEVEL']) delete process.env[name];
});

describe('configuration errors never quote the API key', () => {
  it.each(MISPLACED)('%s: register() and weftSpanProcessor()', (_, env) => {
    Object.assign(process.env, env);
    for (const run of [() => register({ instrumentations: [], flushOnExit: false, logger: false }), () => weftSpanProcessor({ flushOnExit: false })]) {
      const error = configError(run);
      expect(error.message).not.toContain(KEY);
      expect(error.stack).not.toContain(KEY);
      expect(error.message).toContain(error.envVar);
    }
  });

  it('names no key in the option of an error, though the key was given as an option name', () => {
    const options = { apiKey: KEY, [KEY]: 1, instrumentations: [], flushOnExit: false, logger: false } as RegisterOptions;
    const error = configError(() => register(options));
    expect(error.option).not.toContain(KEY);
    expect(error.message).not.toContain(KEY);
  });

  it('hides what comes before "@" in a base URL that does not parse, with no API key set', () => {
    const error = configError(() => register({ baseUrl: 'https://me:sk-only-in-the-url-123@trace.example.com:99999' }));
    expect(error.message).not.toContain('sk-only-in-the-url-123');
    expect(error.message).toContain('got "https://…@trace.example.com:99999"');
  });

  it.each(MISPLACED)('%s: under --import weft/register, whose warning goes to stderr', async (_, env) => {
    const result = await runNode(['--import', 'weft/register', FIXTURE], { ...env, FIXTURE_SETUP: 'none', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'sk-openai-x' });
    expect(result.stderr).toContain('Tracing is off for this process');
    expect(`${result.stdout}${result.stderr}`).not.toContain(KEY);
  });
});
