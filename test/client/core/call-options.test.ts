import { describe, expect, it } from 'vitest';
import { forwardCallOptions } from '../../../src/client/core/call-options.js';
import type { CallOptions } from '../../../src/client/core/types.js';

describe('forwardCallOptions', () => {
  it('forwards the five call options as given', () => {
    const signal = new AbortController().signal;
    const options = { signal, timeoutMs: 5, maxRetries: 1, idempotent: false, headers: { 'x-a': 'b' } };
    expect(forwardCallOptions(options, true)).toEqual(options);
  });

  it("uses the endpoint's idempotent decision when the caller gives none", () => {
    expect(forwardCallOptions({}, false).idempotent).toBe(false);
    expect(forwardCallOptions(undefined, true).idempotent).toBe(true);
    expect(forwardCallOptions({ idempotent: undefined }).idempotent).toBeUndefined();
  });

  it('drops keys that are not call options, so they neither reach the wire nor override the request', () => {
    const stray = { timeoutMs: 5, trailingSlash: true, query: { debug: '1' }, method: 'DELETE' } as CallOptions;
    expect(Object.keys(forwardCallOptions(stray))).toEqual(['signal', 'timeoutMs', 'maxRetries', 'headers', 'idempotent']);
  });
});
