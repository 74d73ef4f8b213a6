import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
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
});
