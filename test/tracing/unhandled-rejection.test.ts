import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecodedSpan } from '../../src/otlp/index.js';
import { type ChildResult, runNode } from '../helpers/child.js';
import { type OpenAIServer, startOpenAIServer } from '../helpers/openai-server.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// Child processes run the built package: Node's own unhandled-rejection tracking is what is under test. Each case
// runs without weft (the app's own behaviour) and with the function made an op; weft must not change what Node
// reports, nor the exit code.

let receiver: OtlpReceiver;
let server: OpenAIServer;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  server = await startOpenAIServer({ status: 400, error: { message: 'no such model', type: 'invalid_request_error' } });
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

interface Run extends ChildResult {
  spans: DecodedSpan[];
}

async function run(CASE: string, withWeft: boolean): Promise<Run> {
  const before = receiver.spans().length;
  const result = await runNode(['test/tracing/fixtures/op-promises.mjs'], {
    CASE,
    WITH_WEFT: withWeft ? '1' : '0',
    WEFT_BASE_URL: receiver.url,
    WEFT_PROJECT: 'test/unhandled',
    OPENAI_BASE_URL: server.baseURL,
  });
  return { ...result, spans: receiver.spans().slice(before) };
}

/** Runs the case without and with weft, expects the same output and exit code, and returns the run with weft. */
async function sameAsWithout(CASE: string, expected: string): Promise<Run> {
  const without = await run(CASE, false);
  expect(without.stdout).toBe(`${expected}\ndone\n`);
  const withWeft = await run(CASE, true);
  expect(withWeft.stdout).toBe(without.stdout);
  expect(withWeft.code).toBe(without.code);
  return withWeft;
}

function theOneSpan(result: Run, name: string): DecodedSpan {
  expect(result.spans.map((s) => s.name)).toEqual([name]);
  return result.spans[0]!;
}

describe('a rejected native promise returned by an op', () => {
  it('is reported as unhandled, with the same error, when the app does not handle it, as without weft', async () => {
    const result = await sameAsWithout('native-unhandled', 'unhandled: the same error');
    expect(result.code).toBe(1);
    expect(theOneSpan(result, 'nativeReject').status).toEqual({ code: 2, message: 'Error: the app rejected on its own' });
  });
});

describe('a failed chat call whose APIPromise the app drops unread', () => {
  it('is reported as unhandled, with the same error, as without weft, and its span records the error', async () => {
    const result = await sameAsWithout('chat-dropped', 'unhandled: Error: 400 no such model');
    expect(result.code).toBe(1);
    expect(theOneSpan(result, 'chat gpt-4o-mini').status).toEqual({ code: 2, message: 'BadRequestError: 400 no such model' });
  });
});

describe('a rejected Promise subclass returned by an op', () => {
  it('is not reported when the app handles it with catch, as without weft', async () => {
    const result = await sameAsWithout('subclass-catch', 'handled by the app: Error');
    expect(result.code).toBe(0);
    expect(theOneSpan(result, 'subclassReject').status.code).toBe(2);
  });

  it('is not reported when it is frozen and awaited, and its span ends once, with the error', async () => {
    const result = await sameAsWithout('frozen-awaited', 'handled by the app: Error');
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(theOneSpan(result, 'frozenReject').status).toEqual({ code: 2, message: 'Error: the app rejected on its own' });
  });

  it('ends its span once when its then throws after attaching weft’s callbacks', async () => {
    const result = await sameAsWithout('then-throws', 'handled by the app: Error');
    expect(result.code).toBe(0);
    // weft's own failure is reported once; nothing is done on the span after it ended.
    expect(result.stderr.trim()).toBe('weft tracing failed in then (TypeError); the call itself is unaffected.');
    expect(theOneSpan(result, 'oddReject').status.code).toBe(0);
  });
});

describe('a rejected openai APIPromise returned by an op', () => {
  for (const [CASE, how] of [
    ['api-catch', 'its own catch'],
    ['api-with-response', 'withResponse() in try/catch'],
    ['api-as-response', 'asResponse() in try/catch'],
  ] as const) {
    it(`is not reported when the app handles it with ${how}, and its span records the error`, async () => {
      const result = await sameAsWithout(CASE, 'handled by the app: BadRequestError');
      expect(result.code).toBe(0);
      const span = theOneSpan(result, 'ask');
      expect(span.status).toEqual({ code: 2, message: 'BadRequestError: 400 no such model' });
      expect(span.events.map((e) => e.name)).toEqual(['exception']);
    });
  }

  it('is not reported when a withSpan block returns it and the app handles it with its own catch', async () => {
    const result = await sameAsWithout('with-span-api-catch', 'handled by the app: BadRequestError');
    expect(result.code).toBe(0);
    expect(theOneSpan(result, 'block').status).toEqual({ code: 2, message: 'BadRequestError: 400 no such model' });
  });
});
