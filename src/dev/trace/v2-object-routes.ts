import type { DevContext } from '../context.js';
import { HttpError, sendJson, sendJsonl } from '../http.js';
import type { Route } from '../router.js';
import { checkBody } from '../validate.js';
import { answeredDeleted } from './deleted-objects.js';
import { deleteObjectVersions, writeObject } from './object-writes.js';
import type { ObjSchema } from './types.js';
import { V2_OBJECT_KINDS, type V2ObjectKind } from './v2-object-kinds.js';
import { objectRef, v2Ids, v2Page, v2Project } from './v2-scope.js';

function present(ctx: DevContext, kind: V2ObjectKind, obj: ObjSchema): Record<string, unknown> {
  return { object_id: obj.object_id, digest: obj.digest, version_index: obj.version_index, created_at: obj.created_at, ...kind.read(ctx, obj) };
}

/** The four routes of one v2 object collection: create a version, list the latest versions, read one, delete. */
function routesFor(ctx: DevContext, kind: V2ObjectKind): Route[] {
  const base = `/v2/{entity}/{project}/${kind.collection}`;
  const versionsOf = (projectId: string, objectId: string) => ctx.store.objectVersions(projectId, objectId).filter(kind.holds);
  return [
    {
      method: 'POST',
      path: base,
      handler: async (c) => {
        const projectId = v2Project(c);
        const body = checkBody<Record<string, unknown>>(await c.json(), kind.body);
        const created = kind.create(ctx, projectId, body);
        const { digest, version_index } = writeObject(ctx, projectId, created.objectId, created.val);
        const ref = objectRef(projectId, 'object', created.objectId, digest);
        sendJson(c.res, 200, { digest, object_id: created.objectId, version_index, ...created.answer?.(ref) });
      },
    },
    {
      method: 'GET',
      path: base,
      handler: (c) => {
        const latest = [...ctx.store.projectObjects(v2Project(c))].filter((o) => o.is_latest === 1 && kind.holds(o));
        sendJsonl(c.res, v2Page(c, latest).map((o) => present(ctx, kind, o)));
      },
    },
    {
      method: 'GET',
      path: `${base}/{object_id}/versions/{digest}`,
      handler: (c) => {
        const projectId = v2Project(c);
        // The v2 reads go through the service's obj_read, so a deleted version answers "deleted" here too.
        const found = ctx.store.objectVersion(projectId, c.params.object_id!, c.params.digest!, true);
        if (!found || !kind.holds(found)) throw new HttpError(404, `${kind.noun} ${c.params.object_id}:${c.params.digest} not found in project ${projectId}.`);
        if (answeredDeleted(c.res, found)) return;
        sendJson(c.res, 200, present(ctx, kind, found));
      },
    },
    {
      method: 'DELETE',
      path: `${base}/{object_id}`,
      handler: (c) => {
        const projectId = v2Project(c);
        const objectId = c.params.object_id!;
        const digests = v2Ids(c, 'digests') ?? null;
        const deleted = deleteObjectVersions(ctx, versionsOf(projectId, objectId), digests, `${kind.noun} ${objectId} in project ${projectId}`);
        sendJson(c.res, 200, { num_deleted: deleted });
      },
    },
  ];
}

/** The versioned v2 collections: evaluations, ops, datasets, scorers and models. */
export function v2ObjectRoutes(ctx: DevContext): Route[] {
  return V2_OBJECT_KINDS.flatMap((kind) => routesFor(ctx, kind));
}
