import type { CallOptions } from '../core/types.js';
import type { ResponseStream } from '../core/response-stream.js';
import { encodePath } from '../core/url.js';
import { TraceResource } from './resource.js';
import type {
  AnnotationQueueAddCallsReq,
  AnnotationQueueAddCallsRes,
  AnnotationQueueCreateReq,
  AnnotationQueueCreateRes,
  AnnotationQueueDeleteRes,
  AnnotationQueueItemProgressReq,
  AnnotationQueueItemProgressRes,
  AnnotationQueueItemsQueryReq,
  AnnotationQueueItemsQueryRes,
  AnnotationQueueReadRes,
  AnnotationQueueSchema,
  AnnotationQueueUpdateReq,
  AnnotationQueueUpdateRes,
  AnnotationQueuesQueryReq,
  AnnotationQueuesStatsReq,
  AnnotationQueuesStatsRes,
} from './types/annotation-queues.js';
import type { ProjectScoped } from './types/common.js';

/** Queues of calls for human review. `client.trace.annotationQueues` */
export class AnnotationQueues extends TraceResource {
  /** Creates a queue. POST /annotation_queues */
  async create(req: ProjectScoped<AnnotationQueueCreateReq>, options?: CallOptions): Promise<AnnotationQueueCreateRes> {
    return this.json('POST', '/annotation_queues', { body: this.scoped(req), retry: 'once' }, options);
  }

  /** The queues matching a name, streamed (JSONL). POST /annotation_queues/query */
  streamQuery(req: ProjectScoped<AnnotationQueuesQueryReq> = {}, options?: CallOptions): ResponseStream<AnnotationQueueSchema> {
    return this.jsonl('POST', '/annotation_queues/query', { body: this.scoped(req) }, options);
  }

  /** Item counts of queues. POST /annotation_queues/stats */
  async stats(req: ProjectScoped<AnnotationQueuesStatsReq>, options?: CallOptions): Promise<AnnotationQueuesStatsRes> {
    return this.json('POST', '/annotation_queues/stats', { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Deletes a queue. DELETE /annotation_queues/{queue_id}?project_id= */
  async delete(queueId: string, params: { project_id?: string | undefined } = {}, options?: CallOptions): Promise<AnnotationQueueDeleteRes> {
    return this.json('DELETE', encodePath`/annotation_queues/${queueId}`, { query: this.scoped(params) }, options);
  }

  /** Reads a queue. GET /annotation_queues/{queue_id}?project_id= */
  async read(queueId: string, params: { project_id?: string | undefined } = {}, options?: CallOptions): Promise<AnnotationQueueReadRes> {
    return this.json('GET', encodePath`/annotation_queues/${queueId}`, { query: this.scoped(params) }, options);
  }

  /** Changes a queue's name, description or scorers. PUT /annotation_queues/{queue_id} */
  async update(queueId: string, req: ProjectScoped<AnnotationQueueUpdateReq> = {}, options?: CallOptions): Promise<AnnotationQueueUpdateRes> {
    return this.json('PUT', encodePath`/annotation_queues/${queueId}`, { body: this.scoped(req) }, options);
  }

  /** Adds calls to a queue (duplicates are counted, not added). POST /annotation_queues/{queue_id}/items */
  async addCalls(queueId: string, req: ProjectScoped<AnnotationQueueAddCallsReq>, options?: CallOptions): Promise<AnnotationQueueAddCallsRes> {
    return this.json('POST', encodePath`/annotation_queues/${queueId}/items`, { body: this.scoped(req), retry: 'once' }, options);
  }

  /** Lists a queue's items. POST /annotation_queues/{queue_id}/items/query */
  async queryItems(
    queueId: string,
    req: ProjectScoped<AnnotationQueueItemsQueryReq> = {},
    options?: CallOptions,
  ): Promise<AnnotationQueueItemsQueryRes> {
    const path = encodePath`/annotation_queues/${queueId}/items/query`;
    return this.json('POST', path, { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Sets the review state of one item. POST /annotation_queues/{queue_id}/items/{item_id}/progress */
  async updateItemProgress(
    queueId: string,
    itemId: string,
    req: ProjectScoped<AnnotationQueueItemProgressReq>,
    options?: CallOptions,
  ): Promise<AnnotationQueueItemProgressRes> {
    const path = encodePath`/annotation_queues/${queueId}/items/${itemId}/progress`;
    // Setting a state twice leaves the same state.
    return this.json('POST', path, { body: this.scoped(req), retry: 'idempotent' }, options);
  }
}
