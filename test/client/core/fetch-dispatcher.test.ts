import { expect, it } from 'vitest';
import { runNode } from '../../helpers/child.js';

// undici installs its own Agent as fetch()'s process-wide dispatcher when it loads; weft must not let that
// move the app's fetch() (and the openai SDK on it) onto weft's copy of undici.
it("leaves the app's fetch() dispatcher as it was after weft is imported and its client used", async () => {
  const result = await runNode(['test/fixtures/client/fetch-dispatcher.mjs']);
  expect(result.stderr).toBe('');
  expect(JSON.parse(result.stdout)).toEqual({ after: expect.any(String), unchanged: true, appFetch: 200 });
});

it("keeps the app's fetch() working when weft's client makes the process's first HTTP call", async () => {
  const result = await runNode(['test/fixtures/client/fetch-dispatcher.mjs', 'cold']);
  expect(result.stderr).toBe('');
  expect(JSON.parse(result.stdout)).toEqual({ after: expect.any(String), unchanged: true, appFetch: 200 });
});
