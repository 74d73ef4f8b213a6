import type { CallOptions } from '../core/types.js';
import type { ResponseStream } from '../core/response-stream.js';
import { TraceResource } from './resource.js';
import type { ProjectScoped } from './types/common.js';
import type {
  TableCreateFromDigestsReq,
  TableCreateFromDigestsRes,
  TableCreateReq,
  TableCreateRes,
  TableQueryReq,
  TableQueryRes,
  TableQueryStatsBatchReq,
  TableQueryStatsBatchRes,
  TableQueryStatsReq,
  TableQueryStatsRes,
  TableRowSchema,
  TableUpdateReq,
  TableUpdateRes,
} from './types/tables.js';

/**
 * Content-addressed tables (dataset rows). Creates and updates return digests derived from the rows, so
 * sending one twice yields the same table: they are safe to retry. `client.trace.tables`
 */
export class Tables extends TraceResource {
  /** Stores rows as a table. POST /table/create */
  async create(req: { table: ProjectScoped<TableCreateReq['table']> }, options?: CallOptions): Promise<TableCreateRes> {
    const body: TableCreateReq = { table: this.scoped(req.table) };
    return this.json('POST', '/table/create', { body, retry: 'idempotent' }, options);
  }

  /** Makes a table from rows already stored. POST /table/create_from_digests */
  async createFromDigests(req: ProjectScoped<TableCreateFromDigestsReq>, options?: CallOptions): Promise<TableCreateFromDigestsRes> {
    return this.json('POST', '/table/create_from_digests', { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Reads rows. POST /table/query */
  async query(req: ProjectScoped<TableQueryReq>, options?: CallOptions): Promise<TableQueryRes> {
    return this.json('POST', '/table/query', { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Counts rows. POST /table/query_stats */
  async queryStats(req: ProjectScoped<TableQueryStatsReq>, options?: CallOptions): Promise<TableQueryStatsRes> {
    return this.json('POST', '/table/query_stats', { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Counts rows (and sizes) of several tables. POST /table/query_stats_batch */
  async queryStatsBatch(req: ProjectScoped<TableQueryStatsBatchReq> = {}, options?: CallOptions): Promise<TableQueryStatsBatchRes> {
    return this.json('POST', '/table/query_stats_batch', { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Makes a new table by appending, popping or inserting rows. POST /table/update */
  async update(req: ProjectScoped<TableUpdateReq>, options?: CallOptions): Promise<TableUpdateRes> {
    return this.json('POST', '/table/update', { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Reads rows as a stream (JSONL; the HTTP form is the reference's inference). POST /table/query_stream */
  queryStream(req: ProjectScoped<TableQueryReq>, options?: CallOptions): ResponseStream<TableRowSchema> {
    return this.jsonl('POST', '/table/query_stream', { body: this.scoped(req) }, options);
  }
}
