import type { CallOptions } from '../../core/types.js';
import type { ResponseStream } from '../../core/response-stream.js';
import { encodePath } from '../../core/url.js';
import { deleteIds } from '../id-list.js';
import { TraceResource, type TraceScope } from '../resource.js';
import type { V2DeleteRes, V2ListParams, V2ObjectDeleteParams } from '../types/v2.js';

/**
 * A versioned v2 object collection (ops, datasets, scorers, models, evaluations): create a version, list,
 * read one version, delete versions. The type parameters are the create body, its answer, and a read.
 */
export class V2ObjectResource<CreateBody, CreateRes, ReadRes> extends TraceResource {
  constructor(
    scope: TraceScope,
    /** The collection's path segment, e.g. `datasets`. */
    private readonly collection: string,
  ) {
    super(scope);
  }

  /** Stores a new version. POST /v2/{entity}/{project}/{collection} */
  async create(body: CreateBody, options?: CallOptions): Promise<CreateRes> {
    return this.json('POST', this.v2(encodePath`/${this.collection}`), { body, retry: 'once' }, options);
  }

  /** Lists the newest versions, streamed (JSONL). GET /v2/{entity}/{project}/{collection} */
  list(params: V2ListParams = {}, options?: CallOptions): ResponseStream<ReadRes> {
    return this.jsonl('GET', this.v2(encodePath`/${this.collection}`), { query: { limit: params.limit, offset: params.offset } }, options);
  }

  /** Reads one version. GET /v2/{entity}/{project}/{collection}/{object_id}/versions/{digest} */
  async read(objectId: string, digest: string, options?: CallOptions): Promise<ReadRes> {
    return this.json('GET', this.v2(encodePath`/${this.collection}/${objectId}/versions/${digest}`), {}, options);
  }

  /**
   * Deletes the given versions, or all of them when `digests` is left out (an empty `digests` is refused).
   * DELETE /v2/{entity}/{project}/{collection}/{object_id}?digests=
   */
  async delete(objectId: string, params: V2ObjectDeleteParams = {}, options?: CallOptions): Promise<V2DeleteRes> {
    const digests = params.digests === undefined ? undefined : deleteIds('digests', params.digests);
    return this.json('DELETE', this.v2(encodePath`/${this.collection}/${objectId}`), { query: { digests } }, options);
  }
}
