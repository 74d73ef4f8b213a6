import OpenAIv6 from 'openai-v6';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusCodeValue } from '../../src/otlp/index.js';
import { API_KEY, type Harness, startHarness } from './harness.js';

/**
 * A `create` that throws synchronously — openai's own on a missing body, or whatever sits under weft's patch —
 * is called exactly once, and its error reaches the app as the same instance.
 */

type Create = (this: unknown, ...args: unknown[]) => unknown;
const SYNC_FAILURE = 'sync-failure';

let h: Harness;
let calls = 0;
let thrown: unknown[] = [];
beforeAll(async () => {
  h = await startHarness();
  // The app's own wrapper under weft's (openai 6 is not patched yet in this process): counts the calls that
  // reach openai, and throws synchronously for one model.
  const prototype = OpenAIv6.Chat.Completions.prototype as unknown as { create: Create };
  const openaiCreate = prototype.create;
  prototype.create = function countingCreate(this: unknown, ...args: unknown[]) {
    calls += 1;
    try {
      if ((args[0] as { model?: unknown } | undefined)?.model === SYNC_FAILURE) throw new Error('thrown synchronously');
      return openaiCreate.apply(this, args);
    } catch (error) {
      thrown.push(error);
      throw error;
    }
  };
  expect(h.instrumentation.manuallyInstrument(OpenAIv6)).toBe(true);
});
afterAll(async () => {
  await h.close();
});

function client(): OpenAIv6 {
  return new OpenAIv6({ baseURL: h.server.baseURL, apiKey: API_KEY, maxRetries: 0 });
}

/** Calls `create` the way the app would, and returns what it threw synchronously. */
function syncThrowOf(body: unknown): unknown {
  calls = 0;
  thrown = [];
  try {
    (client().chat.completions.create as (body: unknown) => unknown)(body);
  } catch (error) {
    return error;
  }
  throw new Error('expected create() to throw synchronously');
}

describe('a create that throws synchronously', () => {
  it('is called once for a call weft does not trace, and the app gets its error', () => {
    const error = syncThrowOf(undefined);
    expect(calls).toBe(1);
    expect(thrown).toHaveLength(1);
    expect(error).toBe(thrown[0]);
  });

  it('is called once for a traced call, the span records the error, and the app gets the same instance', async () => {
    const error = syncThrowOf({ model: SYNC_FAILURE, messages: [{ role: 'user', content: 'hi' }] });
    expect(calls).toBe(1);
    expect(error).toBe(thrown[0]);
    const [span] = await h.spans(1);
    expect(span?.name).toBe(`chat ${SYNC_FAILURE}`);
    expect(span?.status).toEqual({ code: StatusCodeValue.ERROR, message: 'Error: thrown synchronously' });
    expect(span?.attributes['error.type']).toBe('Error');
  });
});
