import type { DevContext } from '../context.js';
import { HttpError, sendJson, sendJsonl } from '../http.js';
import { uuidv7 } from '../ids.js';
import type { RequestContext, Route } from '../router.js';
import { checkBody, type ObjectSpec } from '../validate.js';
import { Collection } from './collection.js';
import { strList } from './fields.js';
import { v2Ids, v2Page, v2Project } from './v2-scope.js';

/**
 * One v2 collection of plain records (evaluation runs, predictions, scores): created with a new id, listed
 * (JSONL, filtered and paged by query parameters), read by id, deleted by a list of ids.
 */
export interface V2RecordKind<T extends object> {
  /** The path segment, e.g. `predictions`. */
  collection: string;
  /** How errors name one record, e.g. `Prediction`. */
  noun: string;
  /** The record's id field, also the path placeholder of a read, e.g. `prediction_id`. */
  idField: keyof T & string;
  /** The list of ids a delete takes, as a query parameter or a body field, e.g. `prediction_ids`. */
  deleteParam: string;
  body: ObjectSpec;
  /** The new record for a checked create body; may throw (a 404 for a ref to something missing). */
  build(projectId: string, id: string, body: Record<string, unknown>): T;
  /** Which records a list keeps, from its query parameters. */
  listFilter(c: RequestContext): (record: T) => boolean;
}

/**
 * The ids a delete's body names. Where the service reads them is not settled: the reference names a body field
 * (`{"prediction_ids": [...]}`), one version of its routes takes the body as the bare list (`[...]`, which its
 * Stainless SDK of the time sent), later SDKs send query parameters (weft's client too). All are taken.
 */
async function bodyIds(c: RequestContext, name: string): Promise<string[]> {
  if ((await c.body()).length === 0) return [];
  const raw = await c.json();
  const list = { [name]: { ...strList, nullable: true } };
  if (!Array.isArray(raw)) return checkBody<Record<string, string[] | null>>(raw, { strict: true, fields: list })[name] ?? [];
  try {
    return checkBody<Record<string, string[]>>({ [name]: raw }, { strict: true, fields: list })[name]!;
  } catch (error) {
    // A bare list is the body itself: a 422 points into it (`['body', 2]`), as FastAPI's does, not into a field it lacks.
    if (error instanceof HttpError && Array.isArray(error.detail)) {
      throw new HttpError(422, error.detail.map((i) => ({ ...i, loc: ['body', ...i.loc.slice(2)] })));
    }
    throw error;
  }
}

/** The create, list, read and delete routes of a {@link V2RecordKind}, and the collection they share. */
export function v2RecordRoutes<T extends object>(ctx: DevContext, kind: V2RecordKind<T>): { routes: Route[]; records: Collection<T> } {
  const records = new Collection<T>(ctx, `v2_${kind.collection}`, kind.noun);
  const base = `/v2/{entity}/{project}/${kind.collection}`;
  const routes: Route[] = [
    {
      method: 'POST',
      path: base,
      handler: async (c) => {
        const projectId = v2Project(c);
        const id = uuidv7();
        records.put(projectId, id, kind.build(projectId, id, checkBody(await c.json(), kind.body)));
        sendJson(c.res, 200, { [kind.idField]: id });
      },
    },
    {
      method: 'GET',
      path: base,
      handler: (c) => {
        sendJsonl(c.res, v2Page(c, records.list(v2Project(c)).filter(kind.listFilter(c))));
      },
    },
    {
      method: 'GET',
      path: `${base}/{${kind.idField}}`,
      handler: (c) => {
        sendJson(c.res, 200, records.need(v2Project(c), c.params[kind.idField]!));
      },
    },
    {
      method: 'DELETE',
      path: base,
      handler: async (c) => {
        const ids = [...(v2Ids(c, kind.deleteParam) ?? []), ...(await bodyIds(c, kind.deleteParam))];
        // No ids would read as "every record"; the client refuses to send that, and this refuses to guess.
        if (ids.length === 0) {
          throw new HttpError(422, [{ loc: ['query', kind.deleteParam], msg: 'Field required: at least one id to delete', type: 'missing' }]);
        }
        sendJson(c.res, 200, { num_deleted: records.delete(v2Project(c), ids) });
      },
    },
  ];
  return { routes, records };
}
