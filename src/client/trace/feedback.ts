import type { CallOptions } from '../core/types.js';
import { TraceResource } from './resource.js';
import type { ProjectScoped } from './types/common.js';
import type {
  FeedbackCreateBatchReq,
  FeedbackCreateBatchRes,
  FeedbackCreateReq,
  FeedbackCreateRes,
  FeedbackPayloadSchemaReq,
  FeedbackPayloadSchemaRes,
  FeedbackPurgeReq,
  FeedbackPurgeRes,
  FeedbackQueryReq,
  FeedbackQueryRes,
  FeedbackReplaceReq,
  FeedbackReplaceRes,
  FeedbackStatsReq,
  FeedbackStatsRes,
} from './types/feedback.js';

/** Reactions, notes and custom feedback on calls and objects. `client.trace.feedback` */
export class Feedback extends TraceResource {
  /** Adds one piece of feedback. POST /feedback/create */
  async create(req: ProjectScoped<FeedbackCreateReq>, options?: CallOptions): Promise<FeedbackCreateRes> {
    return this.json('POST', '/feedback/create', { body: this.scoped(req), retry: 'once' }, options);
  }

  /** Adds several pieces of feedback. POST /feedback/batch/create */
  async createBatch(req: { batch: Array<ProjectScoped<FeedbackCreateReq>> }, options?: CallOptions): Promise<FeedbackCreateBatchRes> {
    const body: FeedbackCreateBatchReq = { batch: req.batch.map((item) => this.scoped(item)) };
    return this.json('POST', '/feedback/batch/create', { body, retry: 'once' }, options);
  }

  /** The schema of feedback payloads (shape not documented). POST /feedback/payload_schema */
  async payloadSchema(req: ProjectScoped<FeedbackPayloadSchemaReq> = {}, options?: CallOptions): Promise<FeedbackPayloadSchemaRes> {
    return this.json('POST', '/feedback/payload_schema', { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Deletes the feedback a query names by id (the only purge the service takes). POST /feedback/purge */
  async purge(req: ProjectScoped<FeedbackPurgeReq>, options?: CallOptions): Promise<FeedbackPurgeRes> {
    return this.json('POST', '/feedback/purge', { body: this.scoped(req), retry: 'once' }, options);
  }

  /** Lists feedback (only the requested `fields`). POST /feedback/query */
  async query(req: ProjectScoped<FeedbackQueryReq> = {}, options?: CallOptions): Promise<FeedbackQueryRes> {
    return this.json('POST', '/feedback/query', { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Replaces one piece of feedback. POST /feedback/replace */
  async replace(req: ProjectScoped<FeedbackReplaceReq>, options?: CallOptions): Promise<FeedbackReplaceRes> {
    return this.json('POST', '/feedback/replace', { body: this.scoped(req), retry: 'once' }, options);
  }

  /** Feedback in time buckets. POST /feedback/stats */
  async stats(req: ProjectScoped<FeedbackStatsReq>, options?: CallOptions): Promise<FeedbackStatsRes> {
    return this.json('POST', '/feedback/stats', { body: this.scoped(req), retry: 'idempotent' }, options);
  }
}
