// A namespace import: bundled into an ES module, a named `createRequire` would sit in the bundle's top scope and clash
// with the `const require = createRequire(import.meta.url)` banner apps put there (README, "Bundled apps").
import * as nodeModule from 'node:module';

/**
 * A `require` for what is the same from every file: Node's built-in modules and its one CommonJS module cache. Made
 * from Node's own path where weft has no URL of its own: a bundler that turns weft's ES module build into CommonJS
 * (esbuild does for an app bundled with `--format=cjs`) leaves `import.meta` empty, and `createRequire()` of nothing
 * throws.
 */
export const nodeRequire: NodeJS.Require = nodeModule.createRequire(import.meta.url ?? process.execPath);
