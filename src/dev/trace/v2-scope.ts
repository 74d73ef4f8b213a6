import type { RequestContext } from '../router.js';
import { queryInt } from '../validate.js';
import { page } from './query-expr.js';

/** The project of a `/v2/{entity}/{project}/...` request, as the trace service's `project_id`. */
export function v2Project(c: RequestContext): string {
  return `${c.params.entity}/${c.params.project}`;
}

/** Pages a v2 list by its `limit` and `offset` query parameters. */
export function v2Page<T>(c: RequestContext, records: T[]): T[] {
  const limit = c.url.searchParams.has('limit') ? queryInt(c.url, 'limit', 0, 0, Number.MAX_SAFE_INTEGER) : undefined;
  return page(records, limit, queryInt(c.url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER));
}

/**
 * The ids a v2 list or delete gives for a list parameter: repeated keys (`?ids=a&ids=b`, how weft's client sends a
 * list and FastAPI reads one) or comma-joined values (`?ids=a,b`, how the service's Stainless SDK sends one), both
 * read the same: refs and ids have no commas. Undefined when the parameter is absent.
 */
export function v2Ids(c: RequestContext, name: string): string[] | undefined {
  const values = c.url.searchParams.getAll(name);
  if (values.length === 0) return undefined;
  return values.flatMap((v) => v.split(',')).filter((v) => v !== '');
}

/** `weave:///entity/project/{object|op}/name:digest`, the ref of one object version. */
export function objectRef(projectId: string, kind: 'object' | 'op', objectId: string, digest: string): string {
  return `weave:///${projectId}/${kind}/${objectId}:${digest}`;
}
