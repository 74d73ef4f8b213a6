import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  engines: { node: string };
};
const installedApi = JSON.parse(
  readFileSync(new URL('../../node_modules/@opentelemetry/api/package.json', import.meta.url), 'utf8'),
) as { version: string };

const parts = (version: string) => version.split('.').map(Number) as [number, number, number];

describe('package manifest', () => {
  // The OpenTelemetry API keeps its registrations (tracer provider, context manager) in one global slot, and a
  // copy of the API ignores a registration made by an older minor. Were @opentelemetry/api a dependency of
  // weft's, an app holding a newer one (`npm install @opentelemetry/api` gives the latest) would get a nested
  // copy for weft: the app's own spans would go nowhere and its context would not reach weft's spans.
  it('takes @opentelemetry/api as a peer dependency, so that the app and weft share one copy', () => {
    expect(manifest.dependencies).not.toHaveProperty('@opentelemetry/api');
    const range = manifest.peerDependencies?.['@opentelemetry/api'];
    expect(range).toMatch(/^\^1\.\d+\.\d+$/);
  });

  it('admits the @opentelemetry/api the tests run on', () => {
    const [major, minor, patch] = parts(installedApi.version);
    const [lowMajor, lowMinor, lowPatch] = parts(manifest.peerDependencies!['@opentelemetry/api']!.slice(1));
    expect(major).toBe(lowMajor);
    expect(minor * 1e6 + patch).toBeGreaterThanOrEqual(lowMinor * 1e6 + lowPatch);
  });

  // Node 20.6 to 20.18.0 cannot load weft: undici asks for 20.18.1, and an ES-module import of weft failed on 20.6.0
  // in OpenTelemetry's exporter. The engines range must not admit a Node that one of weft's dependencies refuses.
  it('asks for no older Node than any of its dependencies does', () => {
    const floor = (range: string) => parts(range.replace(/^>=\s*/, ''));
    const ours = floor(manifest.engines.node);
    expect(manifest.engines.node).toMatch(/^>=\d+\.\d+\.\d+$/);
    for (const name of Object.keys(manifest.dependencies)) {
      const theirs = (JSON.parse(readFileSync(new URL(`../../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as {
        engines?: { node?: string };
      }).engines?.node;
      if (!theirs) continue;
      // The lowest version from Node 20 on that their range admits: `>=x.y.z` from there, `^x.y.z` only within x.
      const lowest = theirs
        .split('||')
        .map((alternative) => alternative.trim())
        .flatMap((alternative) => {
          const [major, minor, patch] = parts(alternative.replace(/^(>=|\^)\s*/, '').replace(/\.x$/, '.0'));
          const admitted: [number, number, number] = major >= 20 ? [major, minor || 0, patch || 0] : [20, 0, 0];
          return alternative.startsWith('^') && major !== 20 ? [] : [admitted];
        })
        .sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2])[0];
      if (!lowest) continue;
      const atLeast = lowest[0] * 1e6 + lowest[1] * 1e3 + lowest[2];
      expect(ours[0] * 1e6 + ours[1] * 1e3 + ours[2], `${name} asks for ${theirs}`).toBeGreaterThanOrEqual(atLeast);
    }
  });
});

describe('published type declarations', () => {
  // weft/register imports a few functions from 'weft' by name (to share the app's copy of weft); they are marked
  // `@internal` and must not show in the types an app's editor offers.
  it('declare none of the functions marked @internal', () => {
    const sourceFiles = readdirSync(new URL('../../src', import.meta.url), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    );
    const internal = sourceFiles.flatMap((file) =>
      [...readFileSync(new URL(`../../src/${file}`, import.meta.url), 'utf8').matchAll(/@internal\s*\*\/\s*export function (\w+)/g)].map(
        (match) => match[1]!,
      ),
    );
    expect(internal).toEqual(expect.arrayContaining(['registerFromEnvironment', 'weftBundle']));
    for (const declarations of ['index.d.ts', 'index.d.cts', 'register.d.ts', 'register.d.cts', 'dev.d.ts', 'dev.d.cts']) {
      const text = readFileSync(new URL(`../../dist/${declarations}`, import.meta.url), 'utf8');
      for (const name of internal) expect(text, `${name} in dist/${declarations}`).not.toMatch(new RegExp(`\\b${name}\\b`));
    }
  });
});
