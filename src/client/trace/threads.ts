import type { CallOptions } from '../core/types.js';
import type { ResponseStream } from '../core/response-stream.js';
import { TraceResource } from './resource.js';
import type { ProjectScoped } from './types/common.js';
import type { ThreadSchema, ThreadsQueryReq } from './types/threads.js';

/** Conversation threads. `client.trace.threads` */
export class Threads extends TraceResource {
  /** The threads a query matches, streamed (JSONL). POST /threads/stream_query */
  streamQuery(req: ProjectScoped<ThreadsQueryReq> = {}, options?: CallOptions): ResponseStream<ThreadSchema> {
    return this.jsonl('POST', '/threads/stream_query', { body: this.scoped(req) }, options);
  }
}
