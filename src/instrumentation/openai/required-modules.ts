import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { nodeRequire } from '../../node-require.js';

// The entry file of an installed `openai` package (4.x to 7.x: `index.js` at its root), npm's or pnpm's layout.
const OPENAI_ENTRY = /[\\/]node_modules[\\/]openai[\\/]index\.js$/;

/**
 * The exports of each copy of `openai` that the app required before weft's require hook was installed, in a major
 * `supported` accepts. The hook sees only later `require()` calls, and an app that required `openai` before calling
 * register() (a module of its own that builds the client at load time) never requires it again.
 */
export function requiredOpenAIModules(supported: (major: number) => boolean): unknown[] {
  const found: unknown[] = [];
  // Node's one CommonJS module cache, whichever require reads it.
  for (const [path, module] of Object.entries(nodeRequire.cache)) {
    if (!module?.loaded || !OPENAI_ENTRY.test(path)) continue;
    const major = installedMajor(dirname(path));
    if (major !== undefined && supported(major)) found.push(module.exports);
  }
  return found;
}

// Each enable() looks again (the constructor enables, register() enables): a package's major is read from disk once.
const majorsByDir = new Map<string, number | undefined>();

function installedMajor(packageDir: string): number | undefined {
  if (!majorsByDir.has(packageDir)) majorsByDir.set(packageDir, readMajor(packageDir));
  return majorsByDir.get(packageDir);
}

function readMajor(packageDir: string): number | undefined {
  try {
    const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version?: unknown };
    const major = typeof version === 'string' ? Number.parseInt(version, 10) : Number.NaN;
    return Number.isInteger(major) ? major : undefined;
  } catch {
    return undefined;
  }
}
