import { describe, expect, it } from 'vitest';
import { ENDPOINT_CASES } from './endpoint-cases.js';
import { FIXTURE_PATH, SPEC_PATH, readSpecEndpoints } from './spec-endpoints.js';

// Each case in ENDPOINT_CASES is run against a loopback server by endpoints.test.ts, which checks that the
// request really hit its `METHOD path`; so a spec endpoint without a case is an endpoint the client lacks.
const covered = new Set(ENDPOINT_CASES.map((c) => c.endpoint));

describe('spec part A coverage', () => {
  const fromFixture = readSpecEndpoints(FIXTURE_PATH) ?? [];

  it('reads every endpoint row of the spec tables from the fixture', () => {
    // 65 unversioned paths (3 of them inference-info) and 35 project-scoped ones.
    expect(fromFixture.filter((e) => !e.includes(' /v2/'))).toHaveLength(65);
    expect(fromFixture.filter((e) => e.includes(' /v2/'))).toHaveLength(35);
  });

  it('has a client method, exercised over HTTP, for every method and path of the spec', () => {
    const missing = fromFixture.filter((endpoint) => !covered.has(endpoint));
    expect(missing).toEqual([]);
  });

  it('tests no endpoint that the spec does not list', () => {
    const unknown = [...covered].filter((endpoint) => !fromFixture.includes(endpoint));
    expect(unknown).toEqual([]);
  });

  const fromSpec = readSpecEndpoints(SPEC_PATH);
  it.skipIf(fromSpec === undefined)('keeps the fixture equal to the spec beside the repo', () => {
    expect(fromFixture).toEqual(fromSpec);
  });
});
