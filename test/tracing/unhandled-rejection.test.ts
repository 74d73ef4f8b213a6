import { describe, expect, it } from 'vitest';
import { runNode } from '../helpers/child.js';

// Child processes run the built package: Node's own unhandled-rejection tracking is what is under test.
const run = (env: Record<string, string>) => runNode(['test/tracing/fixtures/unhandled.mjs'], env);

describe('a rejected Promise subclass returned by an op', () => {
  it('is reported as unhandled, with the same error, when the app does not handle it, as without weft', async () => {
    const without = await run({ WITH_WEFT: '0' });
    const withWeft = await run({ WITH_WEFT: '1' });
    expect(without.stdout.trim()).toBe('unhandled: the same error');
    expect(withWeft.stdout.trim()).toBe(without.stdout.trim());
    expect(withWeft.code).toBe(without.code);
  });

  it('is not reported when the app handles it, as without weft', async () => {
    const without = await run({ WITH_WEFT: '0', HANDLE: '1' });
    const withWeft = await run({ WITH_WEFT: '1', HANDLE: '1' });
    expect(without.stdout.trim()).toBe('handled by the app');
    expect(withWeft.stdout.trim()).toBe(without.stdout.trim());
    expect(withWeft.code).toBe(0);
  });
});
