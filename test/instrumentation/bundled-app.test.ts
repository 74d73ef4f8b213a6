import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Format } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runNode } from '../helpers/child.js';
import { loopbackPeersPerTest, tracedAppEnv } from '../helpers/loopback-peers.js';

/**
 * Apps bundled with weft and openai inside (esbuild, the bundler tsup runs on), run as built: the require and import
 * hooks never see a bundled module, so the README's way is `instrumentOpenAI(OpenAI)`, and weft says so when it
 * finds nothing to patch. Bundles go to a temporary folder, where no node_modules is found, as when deployed.
 */

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/instrumentation/${name}`, import.meta.url));
const outDir = mkdtempSync(join(tmpdir(), 'weft-bundle-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

// weft's dependencies use require(): an ES module bundle needs one, as esbuild's documentation says.
// The README's banner, word for word: the common one, which declares `createRequire` in the bundle's top scope.
const REQUIRE_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

// An app's own folder, its node_modules within reach of a bundle built into it (weft's loader hook would be found).
const appDir = mkdtempSync(join(tmpdir(), 'weft-bundled-app-'));
writeFileSync(join(appDir, 'package.json'), JSON.stringify({ name: 'bundled-app', private: true }));
symlinkSync(join(repoRoot, 'node_modules'), join(appDir, 'node_modules'), 'dir');
afterAll(() => rmSync(appDir, { recursive: true, force: true }));

async function bundle(entry: string, format: Format, external: string[] = [], into = outDir): Promise<string> {
  const name = `${entry.replace(/\.mjs$/, '')}-${format}-${external.join('-') || 'all'}`;
  const outfile = join(into, `${name}.${format === 'esm' ? 'mjs' : 'cjs'}`);
  await build({
    entryPoints: [fixture(entry)],
    bundle: true,
    platform: 'node',
    format,
    outfile,
    external,
    banner: format === 'esm' ? { js: REQUIRE_BANNER } : {},
    // The repository's tsconfig maps `weft` to src/: an app resolves the built package.
    tsconfigRaw: {},
    logLevel: 'silent',
  });
  return outfile;
}

const peers = loopbackPeersPerTest();
const env = (extra: Record<string, string> = {}) =>
  tracedAppEnv(peers, 'sk-bundled-app-key-4242', { WEFT_PROJECT: 'acme/bundled', ...extra });
const spanNames = () => peers.receiver.spans().map((span) => span.name).sort();
const BUNDLE_WARNING =
  /weft runs from a (CommonJS bundle|bundle \(.+\)), where register\(\) cannot patch .*instrumentOpenAI\(OpenAI\)/;

describe('an app bundled with weft and openai', () => {
  for (const format of ['cjs', 'esm'] as const) {
    it(`traces its chat calls once it patches openai by hand (${format})`, async () => {
      const result = await runNode([await bundle('bundled-app.mjs', format)], env({ PATCH_BY_HAND: '1' }));
      expect(result.stderr).toBe('');
      expect(result.stdout).toContain('answer: Hello there!');
      expect(spanNames()).toEqual(['answer', 'chat gpt-4o-mini']);
    });

    it(`is told that register() alone could not patch the bundled openai (${format})`, async () => {
      const result = await runNode([await bundle('bundled-app.mjs', format)], env());
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('answer: Hello there!');
      expect(result.stderr).toMatch(BUNDLE_WARNING);
      expect(result.stderr.match(/weft runs from a/g)).toHaveLength(1);
      expect(spanNames()).toEqual(['answer']);
    });
  }

  it('patches an openai left out of a CommonJS bundle and required before register()', async () => {
    // weft's ES module build, which esbuild picks for `import`, made CommonJS: import.meta is empty there.
    const app = await bundle('bundled-app.mjs', 'cjs', ['openai']);
    const result = await runNode([app], env({ NODE_PATH: join(repoRoot, 'node_modules') }));
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('answer: Hello there!');
    expect(spanNames()).toEqual(['answer', 'chat gpt-4o-mini']);
  });

  it('runs when weft/register is bundled in, though its loader hook cannot be installed there', async () => {
    const result = await runNode([await bundle('bundled-register.mjs', 'esm')], env());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('answer: Hello there!');
    expect(result.stderr).toContain('weft/register could not install its loader hook');
    expect(result.stderr).toMatch(BUNDLE_WARNING);
  });

  it('with weft/register bundled in, built into an app whose node_modules is within reach, traces once patched by hand', async () => {
    // A loader hook found through node_modules would hold the rest of the bundle (the app's instrumentOpenAI) back
    // past the check that tells an app its bundled openai is unpatched: it was told so, wrongly.
    const result = await runNode([await bundle('bundled-register-by-hand.mjs', 'esm', [], appDir)], env());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('answer: Hello there!');
    expect(result.stderr).toContain('weft/register could not install its loader hook (it runs from a bundle)');
    expect(result.stderr).not.toMatch(BUNDLE_WARNING);
    expect(spanNames()).toEqual(['answer_from_bundle', 'chat gpt-4o-mini']);
  });
});
