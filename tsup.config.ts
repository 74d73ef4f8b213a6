import { defineConfig, type Options } from 'tsup';

const shared: Options = {
  sourcemap: true,
  target: 'node20',
  platform: 'node',
  // `weft/register` imports weft by name, so an app that also imports 'weft' shares one copy of it.
  external: ['weft'],
};

// Three public entry points (`weft`, `weft/register`, `weft/dev`) in ESM and CommonJS, plus the `weft` command.
// Dependencies stay external: an app's copy of @opentelemetry/api must be the one weft uses.
export default defineConfig([
  {
    ...shared,
    entry: { index: 'src/index.ts', dev: 'src/dev/index.ts', register: 'src/register/auto.ts' },
    format: ['esm'],
    dts: { compilerOptions: { stripInternal: true } },
    splitting: true,
  },
  {
    ...shared,
    entry: { index: 'src/index.ts', dev: 'src/dev/index.ts', register: 'src/register/auto-cjs.ts' },
    format: ['cjs'],
    dts: { compilerOptions: { stripInternal: true } },
    shims: true,
  },
  {
    ...shared,
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    banner: { js: '#!/usr/bin/env node' },
  },
]);
