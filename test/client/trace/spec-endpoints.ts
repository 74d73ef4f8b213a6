import { existsSync, readFileSync } from 'node:fs';

/** A `METHOD path` pair of the spec, v2 rows with their `/v2/{entity}/{project}` prefix. */
export type SpecEndpoint = string;

const V2_PREFIX = '/v2/{entity}/{project}';
const ROW = /^\|\s*[^|]+\|\s*(GET|POST|PUT|DELETE|PATCH)\s*\|\s*`([^`]+)`/;

/**
 * Reads the endpoint tables of spec part A: the rows before the "Project-scoped resource paths" line are
 * full paths; the rows after it are suffixes of `/v2/{entity}/{project}`.
 */
export function parseSpecEndpoints(markdown: string): SpecEndpoint[] {
  // Section 2 of the spec has headings of the same names; the endpoint tables are in section 4.
  const endpointsSection = markdown.slice(Math.max(0, markdown.indexOf('## 4. Endpoints')));
  const start = endpointsSection.indexOf('### A. Trace service');
  const end = endpointsSection.indexOf('### B. Training service');
  const part = endpointsSection.slice(Math.max(0, start), end === -1 ? undefined : end);
  const endpoints: SpecEndpoint[] = [];
  let scoped = false;
  for (const line of part.split('\n')) {
    if (line.startsWith('Project-scoped resource paths')) scoped = true;
    const match = ROW.exec(line);
    if (!match) continue;
    const [, method, path] = match as unknown as [string, string, string];
    endpoints.push(`${method} ${scoped ? V2_PREFIX + path : path}`);
  }
  return endpoints;
}

/** `/objs/{object_id}/aliases` → a RegExp matching `/objs/<one encoded segment>/aliases`. */
export function templateToRegExp(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\{[^}]+\}|<[^>]+>/g, '[^/]+')}$`);
}

/** The committed copy of the spec tables. */
export const FIXTURE_PATH = new URL('../../fixtures/spec-endpoints.md', import.meta.url);
/** The spec itself, when the shared folder sits beside the repo (it does not on every clean clone). */
export const SPEC_PATH = new URL('../../../../shared/spec/service-interface.md', import.meta.url);

export function readSpecEndpoints(path: URL): SpecEndpoint[] | undefined {
  return existsSync(path) ? parseSpecEndpoints(readFileSync(path, 'utf8')) : undefined;
}
