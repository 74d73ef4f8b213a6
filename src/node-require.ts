import { createRequire } from 'node:module';

/**
 * A `require` for what is the same from every file: Node's built-in modules and its one CommonJS module cache. Made
 * from Node's own path where weft has no URL of its own: a bundler that turns weft's ES module build into CommonJS
 * (esbuild does for an app bundled with `--format=cjs`) leaves `import.meta` empty, and `createRequire()` of nothing
 * throws.
 */
export const nodeRequire: NodeJS.Require = createRequire(import.meta.url ?? process.execPath);
