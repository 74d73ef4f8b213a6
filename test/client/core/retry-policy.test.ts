import { describe, expect, it } from 'vitest';
import { backoffDelay, encodePath, parseRetryAfter } from '../../../src/client/core/index.js';

describe('backoffDelay', () => {
  it('doubles each retry and stays between half and all of the step', () => {
    const options = { initialDelayMs: 100, maxDelayMs: 10_000 };
    expect(backoffDelay(1, options, () => 0)).toBe(50);
    expect(backoffDelay(1, options, () => 1)).toBe(100);
    expect(backoffDelay(3, options, () => 0)).toBe(200);
    expect(backoffDelay(3, options, () => 1)).toBe(400);
  });

  it('never exceeds the maximum delay', () => {
    expect(backoffDelay(30, { initialDelayMs: 100, maxDelayMs: 1000 }, () => 1)).toBe(1000);
  });
});

describe('parseRetryAfter', () => {
  const now = () => Date.parse('2026-01-01T00:00:00Z');

  it('reads seconds', () => {
    expect(parseRetryAfter({ 'retry-after': '2' })).toBe(2000);
    expect(parseRetryAfter({ 'retry-after': '0.5' })).toBe(500);
  });

  it('reads an HTTP date relative to now', () => {
    expect(parseRetryAfter({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }, now)).toBe(3000);
  });

  it('treats a date in the past as no wait', () => {
    expect(parseRetryAfter({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }, now)).toBe(0);
  });

  it('prefers retry-after-ms', () => {
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(250);
  });

  it('ignores an unreadable value', () => {
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeUndefined();
    expect(parseRetryAfter({})).toBeUndefined();
  });
});

describe('encodePath', () => {
  it('encodes each value as one segment', () => {
    expect(encodePath`/objs/${'a/b?c#d'}/versions/${'x y'}`).toBe('/objs/a%2Fb%3Fc%23d/versions/x%20y');
  });

  it('refuses dot segments, which URL parsing would resolve even when encoded', () => {
    expect(() => encodePath`/objs/${'..'}/aliases`).toThrow('cannot be ".."');
    expect(() => encodePath`/objs/${'.'}/aliases`).toThrow(TypeError);
  });

  it('rejects an empty value', () => {
    expect(() => encodePath`/annotation_queues/${''}`).toThrow(TypeError);
  });
});
