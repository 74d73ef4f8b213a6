import type { DevContext } from '../context.js';
import { HttpError, sendJson } from '../http.js';
import type { Route } from '../router.js';
import { checkBody, type ObjectSpec } from '../validate.js';
import { answeredDeleted } from './deleted-objects.js';
import { ObjectLabels } from './object-labels.js';
import { deleteObjectVersions, writeObject } from './object-writes.js';
import { page, sortRecords } from './query-expr.js';
import { optBool, optInt, optStr, reqStr, SORT_BY, type SortBy, strList } from './fields.js';
import type { ObjSchema } from './types.js';

const optStrList = { ...strList, nullable: true } as const;

const CREATE_SPEC: ObjectSpec = {
  strict: true,
  fields: {
    obj: {
      type: 'object',
      required: true,
      strict: true,
      fields: {
        project_id: reqStr,
        object_id: reqStr,
        val: { type: 'any', required: true },
        builtin_object_class: optStr,
        set_base_object_class: optStr,
        wb_user_id: optStr,
      },
    },
  },
};

const READ_SPEC: ObjectSpec = {
  strict: true,
  fields: {
    project_id: reqStr,
    object_id: reqStr,
    digest: reqStr,
    metadata_only: optBool,
  },
};

const QUERY_SPEC: ObjectSpec = {
  strict: true,
  fields: {
    project_id: reqStr,
    filter: {
      type: 'object',
      nullable: true,
      strict: true,
      fields: {
        base_object_classes: optStrList,
        exclude_base_object_classes: optStrList,
        leaf_object_classes: optStrList,
        object_ids: optStrList,
        is_op: optBool,
        latest_only: optBool,
      },
    },
    limit: optInt,
    offset: optInt,
    sort_by: SORT_BY,
    metadata_only: optBool,
    include_storage_size: optBool,
  },
};

interface ObjFilter {
  base_object_classes?: string[] | null;
  exclude_base_object_classes?: string[] | null;
  leaf_object_classes?: string[] | null;
  object_ids?: string[] | null;
  is_op?: boolean | null;
  latest_only?: boolean | null;
}

function withoutVal(obj: ObjSchema): ObjSchema {
  return { ...obj, val: {} };
}

/** A version as reads answer it: its size only when asked for (`include_storage_size`), null otherwise, as the service selects it. */
function answered(obj: ObjSchema, metadataOnly: boolean | null | undefined, withSize: boolean | null | undefined): ObjSchema {
  const read = metadataOnly ? withoutVal(obj) : obj;
  return withSize ? read : { ...read, size_bytes: null };
}

/** False when a non-empty `list` lacks `value`: the service filters by a list only when it has items (`if filter.object_ids:`). */
const inList = (list: string[] | null | undefined, value: string | null): boolean => !list?.length || (value !== null && list.includes(value));

function matches(obj: ObjSchema, filter: ObjFilter | null | undefined): boolean {
  if (!filter) return true;
  if (!inList(filter.object_ids, obj.object_id)) return false;
  if (filter.is_op !== undefined && filter.is_op !== null && (obj.kind === 'op') !== filter.is_op) return false;
  if (filter.latest_only && obj.is_latest !== 1) return false;
  if (!inList(filter.base_object_classes, obj.base_object_class)) return false;
  if (filter.exclude_base_object_classes?.length && inList(filter.exclude_base_object_classes, obj.base_object_class)) return false;
  if (!inList(filter.leaf_object_classes, obj.leaf_object_class)) return false;
  return true;
}

// The only fields the service sorts objects by; it skips any other `sort_by` term rather than refuse it.
const SORTABLE = new Set(['object_id', 'created_at']);

/**
 * The order of `/objs/query`, as the service builds it: the `object_id` and `created_at` terms asked for,
 * then the version index; `created_at` and the version index when none is left.
 */
function objectOrder(sortBy: SortBy[] | null | undefined): SortBy[] {
  const terms = (sortBy ?? []).filter((s) => SORTABLE.has(s.field));
  return [...(terms.length > 0 ? terms : [{ field: 'created_at', direction: 'asc' as const }]), { field: 'version_index', direction: 'asc' }];
}

/** Versioned objects: create (content-addressed), read by digest, alias, `latest` or `v<N>`, delete, and query. */
export function objectRoutes(ctx: DevContext): Route[] {
  const labels = new ObjectLabels(ctx);
  return [
    {
      method: 'POST',
      path: '/obj/create',
      handler: async (c) => {
        const { obj } = checkBody<{
          obj: { project_id: string; object_id: string; val: unknown; builtin_object_class?: string | null; set_base_object_class?: string | null };
        }>(await c.json(), CREATE_SPEC);
        const { digest } = writeObject(ctx, obj.project_id, obj.object_id, obj.val, obj.builtin_object_class ?? obj.set_base_object_class ?? null);
        sendJson(c.res, 200, { digest, object_id: obj.object_id });
      },
    },
    {
      method: 'POST',
      path: '/obj/read',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; object_id: string; digest: string; metadata_only?: boolean | null }>(
          await c.json(),
          READ_SPEC,
        );
        // Deleted versions are found too: the service reads them to answer "deleted", not "not found".
        const found = ctx.store.objectVersion(body.project_id, body.object_id, labels.resolve(body.project_id, body.object_id, body.digest), true);
        if (!found) throw new HttpError(404, `Obj ${body.object_id}:${body.digest} not found`);
        if (answeredDeleted(c.res, found)) return;
        sendJson(c.res, 200, { obj: answered(found, body.metadata_only, false) });
      },
    },
    {
      method: 'POST',
      path: '/obj/delete',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; object_id: string; digests?: string[] | null }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, object_id: reqStr, digests: optStrList, wb_user_id: optStr },
        });
        const versions = ctx.store.objectVersions(body.project_id, body.object_id);
        const deleted = deleteObjectVersions(ctx, versions, body.digests ?? null, `Obj ${body.object_id} in project ${body.project_id}`);
        sendJson(c.res, 200, { num_deleted: deleted });
      },
    },
    {
      method: 'POST',
      path: '/objs/query',
      handler: async (c) => {
        const body = checkBody<{
          project_id: string;
          filter?: ObjFilter | null;
          limit?: number | null;
          offset?: number | null;
          sort_by?: SortBy[] | null;
          metadata_only?: boolean | null;
          include_storage_size?: boolean | null;
        }>(await c.json(), QUERY_SPEC);
        const kept = [...ctx.store.projectObjects(body.project_id)].filter((o) => matches(o, body.filter));
        const sorted = sortRecords(kept, objectOrder(body.sort_by));
        const selected = page(sorted, body.limit, body.offset);
        sendJson(c.res, 200, { objs: selected.map((o) => answered(o, body.metadata_only, body.include_storage_size)) });
      },
    },
  ];
}
