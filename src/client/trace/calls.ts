import type { CallOptions } from '../core/types.js';
import { ResponseStream } from '../core/response-stream.js';
import { describeValue, WeftConfigError } from '../../config/index.js';
import { type CallNode, buildCallTree } from './call-tree.js';
import { TraceResource } from './resource.js';
import type {
  CallEndReq,
  CallEndRes,
  CallReadReq,
  CallReadRes,
  CallSchema,
  CallStartReq,
  CallStartRes,
  CallStatsReq,
  CallStatsRes,
  CallUpdateReq,
  CallUpdateRes,
  CallUpsertBatchReq,
  CallUpsertBatchRes,
  CallsDeleteReq,
  CallsDeleteRes,
  CallsQueryReq,
  CallsQueryStatsReq,
  CallsQueryStatsRes,
  CallsScoreReq,
  CallsScoreRes,
  CallsUsageReq,
  CallsUsageRes,
  EndedCallSchemaForInsert,
  StartedCallSchemaForInsert,
  TraceUsageReq,
  TraceUsageRes,
} from './types/calls.js';
import type { ProjectScoped, SortBy } from './types/common.js';

/** A call start as the client takes it (`project_id` filled in). */
export interface CallStartInput {
  start: ProjectScoped<StartedCallSchemaForInsert>;
}
/** A call end as the client takes it (`project_id` filled in). */
export interface CallEndInput {
  end: ProjectScoped<EndedCallSchemaForInsert>;
}
/** A batch of starts and ends as the client takes it (`project_id` filled in in each). */
export interface CallUpsertBatchInput {
  batch: Array<{ mode: 'start'; req: CallStartInput } | { mode: 'end'; req: CallEndInput }>;
}

/** Options of {@link Calls.iterate}. */
export interface CallsIterateOptions extends CallOptions {
  /** Calls fetched per request; default 1000. */
  pageSize?: number | undefined;
}

/**
 * The order used to page through calls when the query gives none: offsets only walk a result set
 * consistently when its order is total, and `id` breaks ties between calls started at the same instant.
 */
const STABLE_ORDER: SortBy[] = [
  { field: 'started_at', direction: 'asc' },
  { field: 'id', direction: 'asc' },
];

/** Calls: traced function invocations. `client.trace.calls` */
export class Calls extends TraceResource {
  /** Records the start of a call. POST /call/start */
  async start(req: CallStartInput, options?: CallOptions): Promise<CallStartRes> {
    const body: CallStartReq = { start: this.scoped(req.start) };
    return this.json('POST', '/call/start', { body, retry: 'once' }, options);
  }

  /** Records the end of a call. POST /call/end */
  async end(req: CallEndInput, options?: CallOptions): Promise<CallEndRes> {
    const body: CallEndReq = { end: this.scoped(req.end) };
    return this.json('POST', '/call/end', { body, retry: 'once' }, options);
  }

  /** Writes starts and ends in one request, in order. POST /call/upsert_batch */
  async upsertBatch(req: CallUpsertBatchInput, options?: CallOptions): Promise<CallUpsertBatchRes> {
    const body: CallUpsertBatchReq = {
      batch: req.batch.map((item) =>
        item.mode === 'start'
          ? { mode: item.mode, req: { start: this.scoped(item.req.start) } }
          : { mode: item.mode, req: { end: this.scoped(item.req.end) } },
      ),
    };
    return this.json('POST', '/call/upsert_batch', { body, retry: 'once' }, options);
  }

  /** Reads one call; `call` is null when there is none. POST /call/read */
  async read(req: ProjectScoped<CallReadReq>, options?: CallOptions): Promise<CallReadRes> {
    return this.json('POST', '/call/read', { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Renames a call (only `display_name` can change). POST /call/update */
  async update(req: ProjectScoped<CallUpdateReq>, options?: CallOptions): Promise<CallUpdateRes> {
    // Setting a name to a value twice leaves the same state.
    return this.json('POST', '/call/update', { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Deletes calls. POST /calls/delete */
  async delete(req: ProjectScoped<CallsDeleteReq>, options?: CallOptions): Promise<CallsDeleteRes> {
    return this.json('POST', '/calls/delete', { body: this.scoped(req), retry: 'once' }, options);
  }

  /** Counts the calls a query matches. POST /calls/query_stats */
  async queryStats(req: ProjectScoped<CallsQueryStatsReq> = {}, options?: CallOptions): Promise<CallsQueryStatsRes> {
    return this.json('POST', '/calls/query_stats', { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Usage and call metrics in time buckets. POST /calls/stats */
  async stats(req: ProjectScoped<CallStatsReq>, options?: CallOptions): Promise<CallStatsRes> {
    return this.json('POST', '/calls/stats', { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /**
   * The calls a query matches, streamed (JSONL). POST /calls/stream_query
   *
   * @example
   * for await (const call of client.trace.calls.streamQuery({ filter: { trace_roots_only: true }, limit: 50 })) { … }
   */
  streamQuery(req: ProjectScoped<CallsQueryReq> = {}, options?: CallOptions): ResponseStream<CallSchema> {
    return this.jsonl('POST', '/calls/stream_query', { body: this.scoped(req) }, options);
  }

  /** Token usage rolled up over each root call's descendants. POST /calls/usage */
  async usage(req: ProjectScoped<CallsUsageReq>, options?: CallOptions): Promise<CallsUsageRes> {
    return this.json('POST', '/calls/usage', { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Token usage per trace. POST /trace/usage */
  async traceUsage(req: ProjectScoped<TraceUsageReq> = {}, options?: CallOptions): Promise<TraceUsageRes> {
    return this.json('POST', '/trace/usage', { body: this.scoped(req), retry: 'idempotent' }, options);
  }

  /** Scores calls on the service (payload not documented). POST /calls/score */
  async score(req: ProjectScoped<CallsScoreReq> = {}, options?: CallOptions): Promise<CallsScoreRes> {
    return this.json('POST', '/calls/score', { body: this.scoped(req), retry: 'once' }, options);
  }

  /**
   * Every call a query matches, fetched page by page (`offset`/`limit`) as the consumer reads. The query's
   * own `offset` and `limit` bound the whole walk; without `sort_by`, calls come in start order.
   *
   * @example
   * const calls = await client.trace.calls.iterate({ filter: { op_names: [ref] } }).collect();
   */
  iterate(req: ProjectScoped<CallsQueryReq> = {}, options: CallsIterateOptions = {}): ResponseStream<CallSchema> {
    const { pageSize = 1000, ...callOptions } = options;
    if (!Number.isInteger(pageSize) || pageSize < 1) {
      throw new WeftConfigError('pageSize', undefined, `weft: option \`pageSize\` must be a positive integer, got ${describeValue(pageSize)}.`);
    }
    return new ResponseStream(() => this.pages(req, pageSize, callOptions));
  }

  private async *pages(req: ProjectScoped<CallsQueryReq>, pageSize: number, options: CallOptions): AsyncGenerator<CallSchema> {
    const sort_by = req.sort_by ?? STABLE_ORDER;
    let offset = req.offset ?? 0;
    let remaining = req.limit ?? Number.POSITIVE_INFINITY;
    while (remaining > 0) {
      const limit = Math.min(pageSize, remaining);
      let received = 0;
      for await (const call of this.streamQuery({ ...req, sort_by, offset, limit }, options)) {
        received++;
        yield call;
      }
      if (received < limit) return;
      offset += received;
      remaining -= received;
    }
  }

  /**
   * The calls of one trace, nested by parent. Usually one root; calls whose parent is missing are roots too.
   *
   * @example
   * const [root] = await client.trace.calls.tree(traceId);
   */
  async tree(traceId: string, options?: CallsIterateOptions): Promise<CallNode[]> {
    const calls = await this.iterate({ filter: { trace_ids: [traceId] } }, options).collect();
    return buildCallTree(calls);
  }
}
