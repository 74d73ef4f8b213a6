import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (p: string) => fileURLToPath(new URL(`./src/${p}`, import.meta.url));

// In-process tests import the public API from source (`weft`, `weft/dev`); child-process tests run the
// built package (`npm test` builds first), exactly as a user's `node --import weft/register` would.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^weft$/, replacement: src('index.ts') },
      { find: /^weft\/dev$/, replacement: src('dev/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/helpers/shake.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
