import type { DiagLogger } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, op, register, WeftAuthenticationError } from 'weft';
import { type DevService, startDevService } from 'weft/dev';
import { runNode } from '../helpers/child.js';

// A service that wants a key, and apps that send none or the wrong one: what they are told must say where the key
// comes from (the `apiKey` option, WEFT_API_KEY), whatever the service's own words, and never the key itself.
const RIGHT_KEY = 'sk-dev-right-0a1b2c3d';
const WRONG_KEY = 'sk-app-wrong-9z8y7x6w';

let dev: DevService;
beforeAll(async () => {
  dev = await startDevService({ port: 0, log: false, apiKey: RIGHT_KEY });
});
afterAll(() => dev.close());

async function authenticationError(apiKey: string | undefined): Promise<WeftAuthenticationError> {
  const client = new Client({ baseUrl: dev.url, inferenceBaseUrl: dev.v1Url, trainingBaseUrl: dev.v1Url, project: 'acme/p', apiKey });
  try {
    await client.inference.models.list();
  } catch (error) {
    if (error instanceof WeftAuthenticationError) return error;
    throw error;
  } finally {
    await client.close();
  }
  throw new Error('expected a WeftAuthenticationError');
}

describe('a 401 from a service', () => {
  it('tells a Client that sent no key to set the apiKey option or WEFT_API_KEY', async () => {
    const error = await authenticationError(undefined);
    expect(error.status).toBe(401);
    expect(error.message).toContain('No API key was sent: set the `apiKey` option or WEFT_API_KEY.');
  });

  it('tells a Client whose key was refused where that key came from, without showing it', async () => {
    const error = await authenticationError(WRONG_KEY);
    expect(error.message).toContain('The API key (the `apiKey` option or WEFT_API_KEY) was not accepted.');
    expect(error.message).not.toContain(WRONG_KEY);
  });

  it('tells register() the same in the warning about the spans it dropped', async () => {
    const lines: string[] = [];
    const keep = (...args: unknown[]) => {
      lines.push(args.map(String).join(' '));
    };
    const logger: DiagLogger = { error: keep, warn: keep, info: keep, debug: keep, verbose: keep };
    const weft = register({ baseUrl: dev.url, project: 'acme/p', apiKey: WRONG_KEY, instrumentations: [], flushOnExit: false, logger });
    try {
      await op(async function refused() {})();
      await weft.forceFlush();
    } finally {
      await weft.shutdown();
    }
    expect(weft.droppedSpans).toBe(1);
    const said = lines.join('\n');
    expect(said).toContain('(HTTP 401)');
    expect(said).toContain('The API key (the `apiKey` option or WEFT_API_KEY) was not accepted.');
    expect(said).not.toContain(WRONG_KEY);
  });

  it('tells weft jobs watch to set WEFT_API_KEY', async () => {
    // The built command (`npm run build` first), as a user's shell runs it.
    const result = await runNode(['dist/cli.js', 'jobs', 'watch', 'job-1'], { WEFT_TRAINING_BASE_URL: dev.v1Url });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('failed with 401');
    expect(result.stderr).toContain('No API key was sent: set WEFT_API_KEY.');
  });
});
