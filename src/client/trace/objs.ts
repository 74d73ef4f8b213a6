import type { CallOptions } from '../core/types.js';
import { encodePath } from '../core/url.js';
import { TraceResource } from './resource.js';
import type { ProjectScoped } from './types/common.js';
import type {
  AliasesListRes,
  ObjAddTagsReq,
  ObjAddTagsRes,
  ObjCreateReq,
  ObjCreateRes,
  ObjDeleteReq,
  ObjDeleteRes,
  ObjQueryReq,
  ObjQueryRes,
  ObjReadReq,
  ObjReadRes,
  ObjRemoveAliasesReq,
  ObjRemoveAliasesRes,
  ObjRemoveTagsReq,
  ObjRemoveTagsRes,
  ObjSchemaForInsert,
  ObjSetAliasesReq,
  ObjSetAliasesRes,
  TagsListRes,
} from './types/objects.js';

/** Query parameters of the project-wide list endpoints (`project_id` filled in). */
export type ListParams = { project_id?: string | undefined } & Record<string, string | number | boolean | undefined>;

/** Versioned objects (and ops), their aliases and tags. `client.trace.objs` */
export class Objs extends TraceResource {
  /** Stores a new version of an object. POST /obj/create */
  async create(req: { obj: ProjectScoped<ObjSchemaForInsert> }, options?: CallOptions): Promise<ObjCreateRes> {
    const body: ObjCreateReq = { obj: this.scoped(req.obj) };
    // Versions are addressed by the digest of their value: storing the same value twice is one version.
    return this.json('POST', '/obj/create', { body, retry: 'idempotent' }, options);
  }

  /** Deletes some versions of an object, or all of them. POST /obj/delete */
  async delete(req: ProjectScoped<ObjDeleteReq>, options?: CallOptions): Promise<ObjDeleteRes> {
    return this.json('POST', '/obj/delete', { body: this.scoped(req), retry: 'once' }, options);
  }

  /** Reads one version of an object. POST /obj/read */
  async read(req: ProjectScoped<ObjReadReq>, options?: CallOptions): Promise<ObjReadRes> {
    return this.json('POST', '/obj/read', { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Lists object versions. POST /objs/query */
  async query(req: ProjectScoped<ObjQueryReq> = {}, options?: CallOptions): Promise<ObjQueryRes> {
    return this.json('POST', '/objs/query', { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Points aliases at one version of an object. PUT /objs/{object_id}/aliases */
  async setAliases(objectId: string, req: ProjectScoped<ObjSetAliasesReq>, options?: CallOptions): Promise<ObjSetAliasesRes> {
    return this.json('PUT', encodePath`/objs/${objectId}/aliases`, { body: this.scoped(req) }, options);
  }

  /** Removes aliases from an object. POST /objs/{object_id}/aliases/remove */
  async removeAliases(objectId: string, req: ProjectScoped<ObjRemoveAliasesReq>, options?: CallOptions): Promise<ObjRemoveAliasesRes> {
    // Removing an alias that is gone leaves the same state.
    return this.json('POST', encodePath`/objs/${objectId}/aliases/remove`, { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Adds tags to one version of an object. PUT /objs/{object_id}/versions/{digest}/tags */
  async addTags(objectId: string, digest: string, req: ProjectScoped<ObjAddTagsReq>, options?: CallOptions): Promise<ObjAddTagsRes> {
    return this.json('PUT', encodePath`/objs/${objectId}/versions/${digest}/tags`, { body: this.scoped(req) }, options);
  }

  /** Removes tags from one version of an object. POST /objs/{object_id}/versions/{digest}/tags/remove */
  async removeTags(objectId: string, digest: string, req: ProjectScoped<ObjRemoveTagsReq>, options?: CallOptions): Promise<ObjRemoveTagsRes> {
    const path = encodePath`/objs/${objectId}/versions/${digest}/tags/remove`;
    return this.json('POST', path, { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Lists the project's aliases. GET /aliases?project_id= */
  async listAliases(params: ListParams = {}, options?: CallOptions): Promise<AliasesListRes> {
    return this.json('GET', '/aliases', { query: this.scoped(params) }, options);
  }

  /** Lists the project's tags. GET /tags?project_id= */
  async listTags(params: ListParams = {}, options?: CallOptions): Promise<TagsListRes> {
    return this.json('GET', '/tags', { query: this.scoped(params) }, options);
  }
}
