import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reportOnce } from '../diagnostics.js';
import { openAIPatchedYet } from '../instrumentation/openai/index.js';

declare const __webpack_require__: unknown;

/** The `name` of weft's package.json. */
const PACKAGE_NAME = 'weft';

/**
 * Where weft's code runs when an app's bundler (esbuild, webpack, ...) copied it into the app's own file: `{ file }`,
 * the file when it is known. Undefined when weft runs from its package, or when that cannot be told (a file weft cannot
 * read, a URL that is not a file's). The nearest package.json above weft's file is weft's own in its package, the
 * app's (or none) in a bundle.
 *
 * @internal
 */
export function weftBundle(): { file?: string } | undefined {
  // Read once: weft/register asks before it registers, and register() asks again.
  if (bundleFound === NOT_LOOKED) bundleFound = findBundle();
  return bundleFound;
}

const NOT_LOOKED = Symbol('not looked');
let bundleFound: { file?: string } | undefined | typeof NOT_LOOKED = NOT_LOOKED;

function findBundle(): { file?: string } | undefined {
  // webpack puts the URL of the file it bundled from in place of import.meta.url: the build's node_modules, where the
  // nearest package.json is weft's own. Its runtime's `__webpack_require__` says where weft runs.
  if (typeof __webpack_require__ === 'function') return { file: process.argv[1] };
  const url = import.meta.url as string | undefined;
  // Only a bundler that made weft's ES module build CommonJS leaves weft without a URL: its own builds have one.
  if (!url) return {};
  let file: string;
  try {
    file = fileURLToPath(url);
  } catch {
    return undefined;
  }
  for (let dir = dirname(file); ; ) {
    let text: string;
    try {
      text = readFileSync(join(dir, 'package.json'), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
      const parent = dirname(dir);
      if (parent === dir) return { file };
      dir = parent;
      continue;
    }
    try {
      return (JSON.parse(text) as { name?: unknown }).name === PACKAGE_NAME ? undefined : { file };
    } catch {
      return undefined;
    }
  }
}

/**
 * Says, once, that register() traces no `openai` call of a bundled app: the require and import hooks only see modules
 * Node loads, never one a bundler copied into the app's file, so nothing tells the app its chat calls go untraced.
 * Said when weft runs from a bundle and no `openai` was patched by the next turn of the event loop (an app patches by
 * hand, `instrumentOpenAI(OpenAI)`, before register() or right after it).
 */
export function warnIfBundledOpenAIUnpatched(): void {
  const bundle = weftBundle();
  if (!bundle) return;
  setImmediate(() => {
    if (openAIPatchedYet()) return;
    reportOnce(
      'openai:bundled',
      `runs from ${bundle.file ? `a bundle (${bundle.file})` : 'a CommonJS bundle'}, where register() cannot patch the openai bundled with the app: its chat calls are not traced until the app patches it with instrumentOpenAI(OpenAI). An app that does not call openai can pass register({ instrumentations: [] }).`,
    );
  }).unref();
}
