import { describe, expect, it } from 'vitest';
import { SPEC_PATHS } from 'weft/dev';
import { FIXTURE_PATH, SPEC_PATH, readSpecEndpoints } from '../client/trace/spec-endpoints.js';
import { devService, get } from './support.js';

/** The spec writes fixed segments as `<name>`, SPEC_PATHS as `{name}`; compare them in one notation. */
const normalize = (endpoint: string) => endpoint.replace(/<([^>]+)>/g, '{$1}');

/** SPEC_PATHS's trace-service entries (part A); the training ones start with `/v1/`. */
const traceEntries = () =>
  SPEC_PATHS.filter(([, path]) => !path.startsWith('/v1/')).map(([method, path]) => `${method} ${path}`);

/** Checks that the spec paths matching `pattern` (there must be `count`) answer something other than 501. */
async function expectServed(pattern: RegExp, count: number): Promise<void> {
  const dev = await devService();
  const paths = SPEC_PATHS.filter(([, path]) => pattern.test(path));
  expect(paths.length).toBe(count);
  for (const [method, path] of paths) {
    const res = await fetch(`${dev.url}${path.replace(/\{[^}]+\}/g, 'x')}`, { method });
    await res.arrayBuffer();
    expect(res.status, `${method} ${path}`).toBeLessThan(500);
  }
}

describe('weft dev: the spec paths it knows', () => {
  it('lists exactly the trace-service endpoints of the committed spec tables', () => {
    const spec = readSpecEndpoints(FIXTURE_PATH);
    expect(spec).toBeDefined();
    expect([...traceEntries()].sort()).toEqual([...new Set(spec!.map(normalize))].sort());
  });

  it.skipIf(readSpecEndpoints(SPEC_PATH) === undefined)('lists exactly the trace-service endpoints of the shared spec', () => {
    const spec = readSpecEndpoints(SPEC_PATH)!;
    expect([...traceEntries()].sort()).toEqual([...new Set(spec.map(normalize))].sort());
  });

  it('answers the model analysis listing at its spec path with a 501 naming it', async () => {
    const dev = await devService();
    const res = await get(dev.url, '/inference/analysis/acme/models');
    expect(res.status).toBe(501);
    expect(res.body.detail).toContain('model analysis listing');
  });

  it('serves threads, costs, annotation queues and the v2 resources (except eval results) instead of answering 501', async () => {
    const served = /^\/(threads|cost|annotation_queues)\/|^\/annotation_queues$|^\/v2\/(?!\{entity\}\/\{project\}\/eval_results)/;
    await expectServed(served, 47);
  });

  it('serves call update, calls delete, stats and usage, and trace usage instead of answering 501', async () => {
    await expectServed(/^\/(call\/update|calls\/(delete|stats|usage)|trace\/usage)$/, 5);
  });

  it('serves object delete, aliases and tags instead of answering 501', async () => {
    await expectServed(/^\/(obj\/delete|aliases|tags|objs\/\{object_id\}\/(aliases|versions))/, 7);
  });

  it('serves feedback batch create, replace, purge and stats instead of answering 501', async () => {
    await expectServed(/^\/feedback\/(batch\/create|replace|purge|stats)$/, 4);
  });

  it('serves every table endpoint and file stats instead of answering 501', async () => {
    await expectServed(/^\/(table\/|files\/query_stats$)/, 8);
  });

  it('serves refs read batch instead of answering 501', async () => {
    await expectServed(/^\/refs\/read_batch$/, 1);
  });

  it('answers 501 for the eleven operations left to a real deployment, each saying why', async () => {
    const dev = await devService();
    const unserved: string[] = [];
    for (const [method, path, operation] of SPEC_PATHS.filter(([, p]) => !p.startsWith('/v1/'))) {
      const res = await fetch(`${dev.url}${path.replace(/\{[^}]+\}/g, 'x')}`, { method });
      const text = await res.text();
      if (res.status !== 501) continue;
      unserved.push(operation);
      expect(JSON.parse(text).detail, operation).toMatch(new RegExp(`"${operation}" \\(${method} [^)]+\\) \\(.+\\); `));
    }
    expect(unserved.sort()).toEqual(
      [
        'Calls Score',
        'Eval Results Query',
        'Evaluate Model',
        'Evaluation Status',
        'Feedback Payload Schema',
        'Get Caller Location',
        'Hardware',
        'Image Create',
        'Projects Info',
        'model analysis listing',
        'router model listing',
      ].sort(),
    );
  });
});
