import { beforeEach } from 'vitest';

/**
 * `npm run test:shake` (WEFT_TEST_SHAKE=1, with the tests of each file in a shuffled order): collects garbage before
 * every test. A test must pass in any order, and whatever an earlier test let go of (a stream never read, whose span
 * ends once it is collected) must end now rather than in the middle of a later test, which would read it as its own.
 * A plain `npm test` runs nothing here.
 */
if (process.env.WEFT_TEST_SHAKE === '1') {
  // Imported only here: it turns on --expose-gc.
  const { collectGarbage } = await import('./gc.js');
  beforeEach(() => collectGarbage(1));
}
