import type { EmptyRes, SortBy, UnknownShape } from './common.js';

/** One version of a stored object (or op). */
export interface ObjSchema {
  project_id: string;
  object_id: string;
  created_at: string;
  deleted_at?: string | null;
  digest: string;
  version_index: number;
  /** 1 for the newest version, else 0. */
  is_latest: number;
  kind: 'op' | 'object' | (string & {});
  base_object_class: string | null;
  leaf_object_class?: string | null;
  val: unknown;
  wb_user_id?: string | null;
  size_bytes?: number | null;
}

/** An object as written. */
export interface ObjSchemaForInsert {
  project_id: string;
  object_id: string;
  val: unknown;
  builtin_object_class?: string | undefined;
  /** @deprecated use `builtin_object_class`. */
  set_base_object_class?: string | undefined;
}

/** POST /obj/create */
export interface ObjCreateReq {
  obj: ObjSchemaForInsert;
}
/** The answer of POST /obj/create. */
export interface ObjCreateRes {
  digest: string;
  object_id?: string;
}

/** POST /obj/read */
export interface ObjReadReq {
  project_id: string;
  object_id: string;
  /** A digest; whether `"latest"` is accepted is UNVERIFIED. */
  digest: string;
  metadata_only?: boolean | undefined;
}
/** The answer of POST /obj/read. */
export interface ObjReadRes {
  obj: ObjSchema;
}

/** POST /obj/delete: without `digests`, every version is deleted. */
export interface ObjDeleteReq {
  project_id: string;
  object_id: string;
  digests?: string[] | undefined;
}
/** The answer of POST /obj/delete. */
export interface ObjDeleteRes {
  num_deleted: number;
}

/** Filter of object versions. */
export interface ObjectVersionFilter {
  base_object_classes?: string[] | undefined;
  exclude_base_object_classes?: string[] | undefined;
  leaf_object_classes?: string[] | undefined;
  object_ids?: string[] | undefined;
  is_op?: boolean | undefined;
  latest_only?: boolean | undefined;
}

/** POST /objs/query */
export interface ObjQueryReq {
  project_id: string;
  filter?: ObjectVersionFilter | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
  /** Only `object_id` and `created_at` can be sorted on. */
  sort_by?: SortBy[] | undefined;
  /** When true, `val` comes back empty. */
  metadata_only?: boolean | undefined;
  include_storage_size?: boolean | undefined;
}
/** The answer of POST /objs/query. */
export interface ObjQueryRes {
  objs: ObjSchema[];
}

/** PUT /objs/{object_id}/aliases: points the aliases at one version. */
export interface ObjSetAliasesReq {
  project_id: string;
  digest: string;
  aliases: string[];
}
/** The answer of PUT /objs/{object_id}/aliases. */
export type ObjSetAliasesRes = EmptyRes;

/** POST /objs/{object_id}/aliases/remove */
export interface ObjRemoveAliasesReq {
  project_id: string;
  aliases: string[];
}
/** The answer of POST /objs/{object_id}/aliases/remove. */
export type ObjRemoveAliasesRes = EmptyRes;

/** PUT /objs/{object_id}/versions/{digest}/tags. The body is the reference's guess (UNVERIFIED). */
export interface ObjAddTagsReq {
  project_id: string;
  tags: string[];
}
/** The answer of PUT /objs/{object_id}/versions/{digest}/tags. */
export type ObjAddTagsRes = EmptyRes;

/** POST /objs/{object_id}/versions/{digest}/tags/remove. The body is the reference's guess (UNVERIFIED). */
export interface ObjRemoveTagsReq {
  project_id: string;
  tags: string[];
}
/** The answer of POST /objs/{object_id}/versions/{digest}/tags/remove. */
export type ObjRemoveTagsRes = EmptyRes;

/** GET /aliases?project_id=: the response shape was not read by the reference, so it stays open. */
export type AliasesListRes = UnknownShape | unknown[];
/** GET /tags?project_id=: the response shape is not shown anywhere, so it stays open. */
export type TagsListRes = UnknownShape | unknown[];

