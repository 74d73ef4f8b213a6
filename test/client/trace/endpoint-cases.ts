import type { Client } from '../../../src/client/index.js';

/** The project the test client is scoped to. */
export const PROJECT = 'team/proj';

/** How the loopback server answers a case. */
export type CaseResponse = { json: unknown } | { jsonl: unknown[] } | { bytes: Uint8Array };

/** One endpoint of spec part A: the client call, what must reach the wire, and what the call returns. */
export interface EndpointCase {
  /** `METHOD path` exactly as in the spec table (v2 rows with their `/v2/{entity}/{project}` prefix). */
  endpoint: string;
  /** The client method under test. */
  name: string;
  call: (client: Client) => Promise<unknown>;
  /** The path that must arrive, relative to the base URL (percent-encoded as sent). */
  path: string;
  query?: Record<string, string | string[]>;
  /** The JSON body that must arrive; `undefined` (with no `bodyKind`) means no body. */
  body?: unknown;
  /** For non-JSON bodies: which kind must arrive (their content is checked in their own tests). */
  bodyKind?: 'multipart' | 'protobuf';
  /** Headers that must arrive beyond those of every request. */
  headers?: Record<string, string>;
  response: CaseResponse;
}

const collect = <T>(stream: AsyncIterable<T>) =>
  (async () => {
    const out: T[] = [];
    for await (const item of stream) out.push(item);
    return out;
  })();

const CALL = {
  id: 'c1',
  project_id: PROJECT,
  op_name: 'weave:///team/proj/op/answer:abc',
  trace_id: 't1',
  started_at: '2026-01-01T00:00:00.000Z',
  attributes: {},
  inputs: { q: 1 },
};
const V2 = '/v2/team/proj';

export const ENDPOINT_CASES: EndpointCase[] = [
  // Calls
  {
    endpoint: 'POST /call/start',
    name: 'calls.start',
    call: (c) =>
      c.trace.calls.start({ start: { op_name: 'answer', started_at: '2026-01-01T00:00:00.000Z', attributes: {}, inputs: { q: 1 } } }),
    path: '/call/start',
    body: { start: { project_id: PROJECT, op_name: 'answer', started_at: '2026-01-01T00:00:00.000Z', attributes: {}, inputs: { q: 1 } } },
    response: { json: { id: 'c1', trace_id: 't1' } },
  },
  {
    endpoint: 'POST /call/end',
    name: 'calls.end',
    call: (c) => c.trace.calls.end({ end: { id: 'c1', ended_at: new Date('2026-01-01T00:00:01Z'), summary: {}, output: 'ok' } }),
    path: '/call/end',
    body: { end: { project_id: PROJECT, id: 'c1', ended_at: '2026-01-01T00:00:01.000Z', summary: {}, output: 'ok' } },
    response: { json: {} },
  },
  {
    endpoint: 'POST /call/read',
    name: 'calls.read',
    call: (c) => c.trace.calls.read({ id: 'c1', include_costs: true }),
    path: '/call/read',
    body: { project_id: PROJECT, id: 'c1', include_costs: true },
    response: { json: { call: CALL } },
  },
  {
    endpoint: 'POST /call/update',
    name: 'calls.update',
    call: (c) => c.trace.calls.update({ call_id: 'c1', display_name: 'renamed' }),
    path: '/call/update',
    body: { project_id: PROJECT, call_id: 'c1', display_name: 'renamed' },
    response: { json: {} },
  },
  {
    endpoint: 'POST /call/upsert_batch',
    name: 'calls.upsertBatch',
    call: (c) =>
      c.trace.calls.upsertBatch({
        batch: [
          { mode: 'start', req: { start: { op_name: 'op', started_at: 'S', attributes: {}, inputs: {} } } },
          { mode: 'end', req: { end: { id: 'c1', ended_at: 'E', summary: {} } } },
        ],
      }),
    path: '/call/upsert_batch',
    body: {
      batch: [
        { mode: 'start', req: { start: { project_id: PROJECT, op_name: 'op', started_at: 'S', attributes: {}, inputs: {} } } },
        { mode: 'end', req: { end: { project_id: PROJECT, id: 'c1', ended_at: 'E', summary: {} } } },
      ],
    },
    response: { json: { res: [{ id: 'c1', trace_id: 't1' }, {}] } },
  },
  {
    endpoint: 'POST /calls/delete',
    name: 'calls.delete',
    call: (c) => c.trace.calls.delete({ call_ids: ['c1', 'c2'] }),
    path: '/calls/delete',
    body: { project_id: PROJECT, call_ids: ['c1', 'c2'] },
    response: { json: { num_deleted: 2 } },
  },
  {
    endpoint: 'POST /calls/query_stats',
    name: 'calls.queryStats',
    call: (c) => c.trace.calls.queryStats({ filter: { trace_roots_only: true } }),
    path: '/calls/query_stats',
    body: { project_id: PROJECT, filter: { trace_roots_only: true } },
    response: { json: { count: 7 } },
  },
  {
    endpoint: 'POST /calls/stats',
    name: 'calls.stats',
    call: (c) =>
      c.trace.calls.stats({ start: '2026-01-01T00:00:00Z', call_metrics: [{ metric: 'call_count', aggregations: ['sum'] }] }),
    path: '/calls/stats',
    body: { project_id: PROJECT, start: '2026-01-01T00:00:00Z', call_metrics: [{ metric: 'call_count', aggregations: ['sum'] }] },
    response: {
      json: { start: 'a', end: 'b', granularity: 3600, timezone: 'UTC', usage_buckets: [], call_buckets: [{ timestamp: 'a', sum_call_count: 3, count: 3 }] },
    },
  },
  {
    endpoint: 'POST /calls/stream_query',
    name: 'calls.streamQuery',
    call: (c) => collect(c.trace.calls.streamQuery({ limit: 2, query: { $expr: { $eq: [{ $getField: 'op_name' }, { $literal: 'x' }] } } })),
    path: '/calls/stream_query',
    body: { project_id: PROJECT, limit: 2, query: { $expr: { $eq: [{ $getField: 'op_name' }, { $literal: 'x' }] } } },
    response: { jsonl: [CALL, { ...CALL, id: 'c2' }] },
  },
  {
    endpoint: 'POST /calls/usage',
    name: 'calls.usage',
    call: (c) => c.trace.calls.usage({ call_ids: ['c1'], include_costs: true }),
    path: '/calls/usage',
    body: { project_id: PROJECT, call_ids: ['c1'], include_costs: true },
    response: { json: { call_usage: { c1: { 'gpt-x': { requests: 1, prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 } } } } },
  },
  {
    endpoint: 'POST /trace/usage',
    name: 'calls.traceUsage',
    call: (c) => c.trace.calls.traceUsage({ filter: { trace_ids: ['t1'] } }),
    path: '/trace/usage',
    body: { project_id: PROJECT, filter: { trace_ids: ['t1'] } },
    response: { json: { call_usage: {} } },
  },
  // Costs
  {
    endpoint: 'POST /cost/create',
    name: 'costs.create',
    call: (c) => c.trace.costs.create({ costs: { 'gpt-x': { prompt_token_cost: 0.1, completion_token_cost: 0.2 } } }),
    path: '/cost/create',
    body: { project_id: PROJECT, costs: { 'gpt-x': { prompt_token_cost: 0.1, completion_token_cost: 0.2 } } },
    response: { json: { ids: [['gpt-x', 'cost1']] } },
  },
  {
    endpoint: 'POST /cost/purge',
    name: 'costs.purge',
    call: (c) => c.trace.costs.purge({ query: { $expr: { $eq: [{ $getField: 'id' }, { $literal: 'cost1' }] } } }),
    path: '/cost/purge',
    body: { project_id: PROJECT, query: { $expr: { $eq: [{ $getField: 'id' }, { $literal: 'cost1' }] } } },
    response: { json: {} },
  },
  {
    endpoint: 'POST /cost/query',
    name: 'costs.query',
    call: (c) => c.trace.costs.query({ limit: 5 }),
    path: '/cost/query',
    body: { project_id: PROJECT, limit: 5 },
    response: { json: { results: [{ id: 'cost1', llm_id: 'gpt-x' }] } },
  },
  // Feedback
  {
    endpoint: 'POST /feedback/batch/create',
    name: 'feedback.createBatch',
    call: (c) => c.trace.feedback.createBatch({ batch: [{ weave_ref: 'weave:///team/proj/call/c1', feedback_type: 'custom', payload: { a: 1 } }] }),
    path: '/feedback/batch/create',
    body: { batch: [{ project_id: PROJECT, weave_ref: 'weave:///team/proj/call/c1', feedback_type: 'custom', payload: { a: 1 } }] },
    response: { json: { res: [{ id: 'f1', created_at: 'now', wb_user_id: 'u', payload: { a: 1 } }] } },
  },
  {
    endpoint: 'POST /feedback/create',
    name: 'feedback.create',
    call: (c) => c.trace.feedback.create({ weave_ref: 'weave:///team/proj/call/c1', feedback_type: 'custom', payload: { note: 'good' } }),
    path: '/feedback/create',
    body: { project_id: PROJECT, weave_ref: 'weave:///team/proj/call/c1', feedback_type: 'custom', payload: { note: 'good' } },
    response: { json: { id: 'f1', created_at: 'now', wb_user_id: 'u', payload: { note: 'good' } } },
  },
  {
    endpoint: 'POST /feedback/payload_schema',
    name: 'feedback.payloadSchema',
    call: (c) => c.trace.feedback.payloadSchema({ feedback_type: 'custom' }),
    path: '/feedback/payload_schema',
    body: { project_id: PROJECT, feedback_type: 'custom' },
    response: { json: { schema: {} } },
  },
  {
    endpoint: 'POST /feedback/purge',
    name: 'feedback.purge',
    call: (c) => c.trace.feedback.purge({ query: { $expr: { $eq: [{ $getField: 'id' }, { $literal: 'f1' }] } } }),
    path: '/feedback/purge',
    body: { project_id: PROJECT, query: { $expr: { $eq: [{ $getField: 'id' }, { $literal: 'f1' }] } } },
    response: { json: {} },
  },
  {
    endpoint: 'POST /feedback/query',
    name: 'feedback.query',
    call: (c) => c.trace.feedback.query({ fields: ['payload.note'] }),
    path: '/feedback/query',
    body: { project_id: PROJECT, fields: ['payload.note'] },
    response: { json: { result: [{ 'payload.note': 'good' }] } },
  },
  {
    endpoint: 'POST /feedback/replace',
    name: 'feedback.replace',
    call: (c) =>
      c.trace.feedback.replace({ feedback_id: 'f1', weave_ref: 'weave:///team/proj/call/c1', feedback_type: 'custom', payload: {} }),
    path: '/feedback/replace',
    body: { project_id: PROJECT, feedback_id: 'f1', weave_ref: 'weave:///team/proj/call/c1', feedback_type: 'custom', payload: {} },
    response: { json: { id: 'f2', created_at: 'now', wb_user_id: 'u', payload: {} } },
  },
  {
    endpoint: 'POST /feedback/stats',
    name: 'feedback.stats',
    call: (c) => c.trace.feedback.stats({ start: '2026-01-01T00:00:00Z' }),
    path: '/feedback/stats',
    body: { project_id: PROJECT, start: '2026-01-01T00:00:00Z' },
    response: { json: { buckets: [] } },
  },
  // Files
  {
    endpoint: 'POST /file/content',
    name: 'files.content',
    call: async (c) => Array.from(await c.trace.files.content({ digest: 'd1' })),
    path: '/file/content',
    body: { project_id: PROJECT, digest: 'd1' },
    response: { bytes: new Uint8Array([1, 2, 3]) },
  },
  {
    endpoint: 'POST /file/create',
    name: 'files.create',
    call: (c) => c.trace.files.create({ content: new Uint8Array([104, 105]), filename: 'hi.txt' }),
    path: '/file/create',
    bodyKind: 'multipart',
    response: { json: { digest: 'd1' } },
  },
  {
    endpoint: 'POST /files/query_stats',
    name: 'files.stats',
    call: (c) => c.trace.files.stats(),
    path: '/files/query_stats',
    body: { project_id: PROJECT },
    response: { json: { total_size_bytes: 42 } },
  },
  // Objects
  {
    endpoint: 'GET /aliases',
    name: 'objs.listAliases',
    call: (c) => c.trace.objs.listAliases(),
    path: '/aliases',
    query: { project_id: PROJECT },
    response: { json: [{ alias: 'prod', object_id: 'o1', digest: 'd1' }] },
  },
  {
    endpoint: 'POST /obj/create',
    name: 'objs.create',
    call: (c) => c.trace.objs.create({ obj: { object_id: 'o1', val: { a: 1 } } }),
    path: '/obj/create',
    body: { obj: { project_id: PROJECT, object_id: 'o1', val: { a: 1 } } },
    response: { json: { digest: 'd1' } },
  },
  {
    endpoint: 'POST /obj/delete',
    name: 'objs.delete',
    call: (c) => c.trace.objs.delete({ object_id: 'o1', digests: ['d1'] }),
    path: '/obj/delete',
    body: { project_id: PROJECT, object_id: 'o1', digests: ['d1'] },
    response: { json: { num_deleted: 1 } },
  },
  {
    endpoint: 'POST /obj/read',
    name: 'objs.read',
    call: (c) => c.trace.objs.read({ object_id: 'o1', digest: 'd1' }),
    path: '/obj/read',
    body: { project_id: PROJECT, object_id: 'o1', digest: 'd1' },
    response: {
      json: {
        obj: {
          project_id: PROJECT,
          object_id: 'o1',
          created_at: 'now',
          digest: 'd1',
          version_index: 0,
          is_latest: 1,
          kind: 'object',
          base_object_class: null,
          val: { a: 1 },
        },
      },
    },
  },
  {
    endpoint: 'POST /objs/query',
    name: 'objs.query',
    call: (c) => c.trace.objs.query({ filter: { latest_only: true }, limit: 10 }),
    path: '/objs/query',
    body: { project_id: PROJECT, filter: { latest_only: true }, limit: 10 },
    response: { json: { objs: [] } },
  },
  {
    endpoint: 'PUT /objs/{object_id}/aliases',
    name: 'objs.setAliases',
    call: (c) => c.trace.objs.setAliases('my obj/1', { digest: 'd1', aliases: ['prod'] }),
    path: '/objs/my%20obj%2F1/aliases',
    body: { project_id: PROJECT, digest: 'd1', aliases: ['prod'] },
    response: { json: {} },
  },
  {
    endpoint: 'POST /objs/{object_id}/aliases/remove',
    name: 'objs.removeAliases',
    call: (c) => c.trace.objs.removeAliases('o1', { aliases: ['prod'] }),
    path: '/objs/o1/aliases/remove',
    body: { project_id: PROJECT, aliases: ['prod'] },
    response: { json: {} },
  },
  {
    endpoint: 'PUT /objs/{object_id}/versions/{digest}/tags',
    name: 'objs.addTags',
    call: (c) => c.trace.objs.addTags('o1', 'd1', { tags: ['reviewed'] }),
    path: '/objs/o1/versions/d1/tags',
    body: { project_id: PROJECT, tags: ['reviewed'] },
    response: { json: {} },
  },
  {
    endpoint: 'POST /objs/{object_id}/versions/{digest}/tags/remove',
    name: 'objs.removeTags',
    call: (c) => c.trace.objs.removeTags('o1', 'd1', { tags: ['reviewed'] }),
    path: '/objs/o1/versions/d1/tags/remove',
    body: { project_id: PROJECT, tags: ['reviewed'] },
    response: { json: {} },
  },
  {
    endpoint: 'GET /tags',
    name: 'objs.listTags',
    call: (c) => c.trace.objs.listTags(),
    path: '/tags',
    query: { project_id: PROJECT },
    response: { json: { tags: ['reviewed'] } },
  },
  // OpenTelemetry
  {
    endpoint: 'POST /otel/v1/traces',
    name: 'otel.export',
    call: (c) => c.trace.otel.export(new Uint8Array([10, 0])),
    path: '/otel/v1/traces',
    bodyKind: 'protobuf',
    // The service routes spans by this header or by resource attributes; raw bytes may carry no resource.
    headers: { project_id: PROJECT },
    response: { json: { partial_success: null } },
  },
  // Refs
  {
    endpoint: 'POST /refs/read_batch',
    name: 'refs.readBatch',
    call: (c) => c.trace.refs.readBatch({ refs: ['weave:///team/proj/object/o1:d1'] }),
    path: '/refs/read_batch',
    body: { refs: ['weave:///team/proj/object/o1:d1'] },
    response: { json: { vals: [{ a: 1 }] } },
  },
  // Service
  { endpoint: 'GET /geolocate', name: 'service.geolocate', call: (c) => c.trace.service.geolocate(), path: '/geolocate', response: { json: { country: 'XX' } } },
  { endpoint: 'GET /health', name: 'service.health', call: (c) => c.trace.service.health(), path: '/health', response: { json: { status: 'ok' } } },
  {
    endpoint: 'GET /server_info',
    name: 'service.serverInfo',
    call: (c) => c.trace.service.serverInfo(),
    path: '/server_info',
    response: { json: { min_required_weave_python_version: '0.50.0' } },
  },
  {
    endpoint: 'POST /service/projects_info',
    name: 'service.projectsInfo',
    call: (c) => c.trace.service.projectsInfo({ project_ids: [PROJECT] }),
    path: '/service/projects_info',
    body: { project_ids: [PROJECT] },
    response: { json: { projects: [] } },
  },
  { endpoint: 'GET /version', name: 'service.version', call: (c) => c.trace.service.version(), path: '/version', response: { json: '1.2.3' } },
  // Tables
  {
    endpoint: 'POST /table/create',
    name: 'tables.create',
    call: (c) => c.trace.tables.create({ table: { rows: [{ q: 1 }, { q: 2 }] } }),
    path: '/table/create',
    body: { table: { project_id: PROJECT, rows: [{ q: 1 }, { q: 2 }] } },
    response: { json: { digest: 't', row_digests: ['r1', 'r2'] } },
  },
  {
    endpoint: 'POST /table/create_from_digests',
    name: 'tables.createFromDigests',
    call: (c) => c.trace.tables.createFromDigests({ row_digests: ['r1'] }),
    path: '/table/create_from_digests',
    body: { project_id: PROJECT, row_digests: ['r1'] },
    response: { json: { digest: 't2' } },
  },
  {
    endpoint: 'POST /table/query',
    name: 'tables.query',
    call: (c) => c.trace.tables.query({ digest: 't', limit: 1 }),
    path: '/table/query',
    body: { project_id: PROJECT, digest: 't', limit: 1 },
    response: { json: { rows: [{ digest: 'r1', val: { q: 1 } }] } },
  },
  {
    endpoint: 'POST /table/query_stats',
    name: 'tables.queryStats',
    call: (c) => c.trace.tables.queryStats({ digest: 't' }),
    path: '/table/query_stats',
    body: { project_id: PROJECT, digest: 't' },
    response: { json: { count: 2 } },
  },
  {
    endpoint: 'POST /table/query_stats_batch',
    name: 'tables.queryStatsBatch',
    call: (c) => c.trace.tables.queryStatsBatch({ digests: ['t'] }),
    path: '/table/query_stats_batch',
    body: { project_id: PROJECT, digests: ['t'] },
    response: { json: { tables: [{ count: 2, digest: 't' }] } },
  },
  {
    endpoint: 'POST /table/update',
    name: 'tables.update',
    call: (c) => c.trace.tables.update({ base_digest: 't', updates: [{ append: { row: { q: 3 } } }, { pop: { index: 0 } }] }),
    path: '/table/update',
    body: { project_id: PROJECT, base_digest: 't', updates: [{ append: { row: { q: 3 } } }, { pop: { index: 0 } }] },
    response: { json: { digest: 't3', updated_row_digests: ['r3'] } },
  },
  {
    endpoint: 'POST /table/query_stream',
    name: 'tables.queryStream',
    call: (c) => collect(c.trace.tables.queryStream({ digest: 't' })),
    path: '/table/query_stream',
    body: { project_id: PROJECT, digest: 't' },
    response: { jsonl: [{ digest: 'r1', val: { q: 1 } }, { digest: 'r2', val: { q: 2 } }] },
  },
  // Threads
  {
    endpoint: 'POST /threads/stream_query',
    name: 'threads.streamQuery',
    call: (c) => collect(c.trace.threads.streamQuery({ limit: 5 })),
    path: '/threads/stream_query',
    body: { project_id: PROJECT, limit: 5 },
    response: { jsonl: [{ thread_id: 'th1', turn_count: 2, start_time: 'a', last_updated: 'b' }] },
  },
  // Inference info
  {
    endpoint: 'GET /inference/analysis/<analysis_provider>/models',
    name: 'inferenceInfo.analysisModels',
    call: (c) => c.trace.inferenceInfo.analysisModels('acme'),
    path: '/inference/analysis/acme/models',
    response: { json: { models: [] } },
  },
  {
    endpoint: 'GET /inference/<hardware_vendor>/v2/hardware',
    name: 'inferenceInfo.hardware',
    call: (c) => c.trace.inferenceInfo.hardware('gpuco'),
    path: '/inference/gpuco/v2/hardware',
    response: { json: [{ name: 'x1' }] },
  },
  {
    endpoint: 'GET /inference/router/<router_provider>/models',
    name: 'inferenceInfo.routerModels',
    call: (c) => c.trace.inferenceInfo.routerModels('routeco'),
    path: '/inference/router/routeco/models',
    response: { json: { data: [] } },
  },
  // Annotation queues
  {
    endpoint: 'POST /annotation_queues',
    name: 'annotationQueues.create',
    call: (c) => c.trace.annotationQueues.create({ name: 'review', scorer_refs: [] }),
    path: '/annotation_queues',
    body: { project_id: PROJECT, name: 'review', scorer_refs: [] },
    response: { json: { id: 'q1' } },
  },
  {
    endpoint: 'POST /annotation_queues/query',
    name: 'annotationQueues.streamQuery',
    call: (c) => collect(c.trace.annotationQueues.streamQuery({ name: 'rev' })),
    path: '/annotation_queues/query',
    body: { project_id: PROJECT, name: 'rev' },
    response: { jsonl: [{ id: 'q1', project_id: PROJECT, name: 'review' }] },
  },
  {
    endpoint: 'POST /annotation_queues/stats',
    name: 'annotationQueues.stats',
    call: (c) => c.trace.annotationQueues.stats({ queue_ids: ['q1'] }),
    path: '/annotation_queues/stats',
    body: { project_id: PROJECT, queue_ids: ['q1'] },
    response: { json: { stats: [{ queue_id: 'q1', total_items: 3, completed_items: 1 }] } },
  },
  {
    endpoint: 'DELETE /annotation_queues/{queue_id}',
    name: 'annotationQueues.delete',
    call: (c) => c.trace.annotationQueues.delete('q1'),
    path: '/annotation_queues/q1',
    query: { project_id: PROJECT },
    response: { json: {} },
  },
  {
    endpoint: 'GET /annotation_queues/{queue_id}',
    name: 'annotationQueues.read',
    call: (c) => c.trace.annotationQueues.read('q1'),
    path: '/annotation_queues/q1',
    query: { project_id: PROJECT },
    response: { json: { queue: { id: 'q1', name: 'review' } } },
  },
  {
    endpoint: 'PUT /annotation_queues/{queue_id}',
    name: 'annotationQueues.update',
    call: (c) => c.trace.annotationQueues.update('q1', { name: 'renamed' }),
    path: '/annotation_queues/q1',
    body: { project_id: PROJECT, name: 'renamed' },
    response: { json: { queue: { id: 'q1', name: 'renamed' } } },
  },
  {
    endpoint: 'POST /annotation_queues/{queue_id}/items',
    name: 'annotationQueues.addCalls',
    call: (c) => c.trace.annotationQueues.addCalls('q1', { call_ids: ['c1'], display_fields: ['inputs.q'] }),
    path: '/annotation_queues/q1/items',
    body: { project_id: PROJECT, call_ids: ['c1'], display_fields: ['inputs.q'] },
    response: { json: { added_count: 1, duplicates: 0 } },
  },
  {
    endpoint: 'POST /annotation_queues/{queue_id}/items/query',
    name: 'annotationQueues.queryItems',
    call: (c) => c.trace.annotationQueues.queryItems('q1', { filter: { annotation_states: ['unstarted'] } }),
    path: '/annotation_queues/q1/items/query',
    body: { project_id: PROJECT, filter: { annotation_states: ['unstarted'] } },
    response: { json: { items: [] } },
  },
  {
    endpoint: 'POST /annotation_queues/{queue_id}/items/{item_id}/progress',
    name: 'annotationQueues.updateItemProgress',
    call: (c) => c.trace.annotationQueues.updateItemProgress('q1', 'i1', { annotation_state: 'completed' }),
    path: '/annotation_queues/q1/items/i1/progress',
    body: { project_id: PROJECT, annotation_state: 'completed' },
    response: { json: {} },
  },
  // Evaluations (server-run)
  {
    endpoint: 'POST /evaluations/evaluate_model',
    name: 'evaluations.evaluateModel',
    call: (c) => c.trace.evaluations.evaluateModel({ evaluation_ref: 'weave:///e', model_ref: 'weave:///m' }),
    path: '/evaluations/evaluate_model',
    body: { project_id: PROJECT, evaluation_ref: 'weave:///e', model_ref: 'weave:///m' },
    response: { json: { call_id: 'ec1' } },
  },
  {
    endpoint: 'POST /evaluations/status',
    name: 'evaluations.status',
    call: (c) => c.trace.evaluations.status({ call_id: 'ec1' }),
    path: '/evaluations/status',
    body: { project_id: PROJECT, call_id: 'ec1' },
    response: { json: { status: { code: 'running', completed_rows: 1, total_rows: 4 } } },
  },
  // Scores
  {
    endpoint: 'POST /calls/score',
    name: 'calls.score',
    call: (c) => c.trace.calls.score({ call_ids: ['c1'], scorer_ref: 'weave:///s' }),
    path: '/calls/score',
    body: { project_id: PROJECT, call_ids: ['c1'], scorer_ref: 'weave:///s' },
    response: { json: { scores: [] } },
  },
  // Images
  {
    endpoint: 'POST /image/create',
    name: 'images.create',
    call: (c) => c.trace.images.create({ inputs: { model: 'img-1', prompt: 'a cat', n: 1 } }),
    path: '/image/create',
    body: { project_id: PROJECT, inputs: { model: 'img-1', prompt: 'a cat', n: 1 } },
    response: { json: { response: { data: [] }, weave_call_id: 'c9' } },
  },

  // v2: project-scoped
  ...objectCollectionCases('evaluations', 'Evaluation', { name: 'e', dataset: 'weave:///d', scorers: [] }),
  ...objectCollectionCases('ops', 'Op', { name: 'op', source_code: 'def f(): pass' }),
  ...objectCollectionCases('datasets', 'Dataset', { name: 'ds', rows: [{ q: 1 }] }),
  ...objectCollectionCases('scorers', 'Scorer', { name: 'sc', op_source_code: 'def s(): pass' }),
  ...objectCollectionCases('models', 'Model', { name: 'm', source_code: 'class M: pass' }),
  {
    endpoint: 'DELETE /v2/{entity}/{project}/scores',
    name: 'v2.scores.delete',
    call: (c) => c.trace.v2.scores.delete({ score_ids: ['s1', 's2'] }),
    path: `${V2}/scores`,
    query: { score_ids: ['s1', 's2'] },
    response: { json: { num_deleted: 2 } },
  },
  {
    endpoint: 'GET /v2/{entity}/{project}/scores',
    name: 'v2.scores.list',
    call: (c) => collect(c.trace.v2.scores.list({ evaluation_run_id: 'r1', limit: 10 })),
    path: `${V2}/scores`,
    query: { evaluation_run_id: 'r1', limit: '10' },
    response: { jsonl: [{ score_id: 's1', scorer: 'weave:///s', value: 1 }] },
  },
  {
    endpoint: 'POST /v2/{entity}/{project}/scores',
    name: 'v2.scores.create',
    call: (c) => c.trace.v2.scores.create({ prediction_id: 'p1', scorer: 'weave:///s', value: 0.5 }),
    path: `${V2}/scores`,
    body: { prediction_id: 'p1', scorer: 'weave:///s', value: 0.5 },
    response: { json: { score_id: 's1' } },
  },
  {
    endpoint: 'GET /v2/{entity}/{project}/scores/{score_id}',
    name: 'v2.scores.read',
    call: (c) => c.trace.v2.scores.read('s1'),
    path: `${V2}/scores/s1`,
    response: { json: { score_id: 's1', scorer: 'weave:///s', value: 0.5 } },
  },
  {
    endpoint: 'DELETE /v2/{entity}/{project}/evaluation_runs',
    name: 'v2.evaluationRuns.delete',
    call: (c) => c.trace.v2.evaluationRuns.delete({ evaluation_run_ids: ['r1'] }),
    path: `${V2}/evaluation_runs`,
    query: { evaluation_run_ids: 'r1' },
    response: { json: { num_deleted: 1 } },
  },
  {
    endpoint: 'GET /v2/{entity}/{project}/evaluation_runs',
    name: 'v2.evaluationRuns.list',
    call: (c) =>
      collect(c.trace.v2.evaluationRuns.list({ evaluations: ['weave:///e1', 'weave:///e2'], models: ['weave:///m'], evaluation_run_ids: ['r1', 'r2'], limit: 5 })),
    path: `${V2}/evaluation_runs`,
    // Under the names the service's own clients send, each list comma-joined.
    query: { evaluation_refs: 'weave:///e1,weave:///e2', model_refs: 'weave:///m', evaluation_run_ids: 'r1,r2', limit: '5' },
    response: { jsonl: [{ evaluation_run_id: 'r1', evaluation: 'weave:///e1', model: 'weave:///m' }] },
  },
  {
    endpoint: 'POST /v2/{entity}/{project}/evaluation_runs',
    name: 'v2.evaluationRuns.create',
    call: (c) => c.trace.v2.evaluationRuns.create({ evaluation: 'weave:///e', model: 'weave:///m' }),
    path: `${V2}/evaluation_runs`,
    body: { evaluation: 'weave:///e', model: 'weave:///m' },
    response: { json: { evaluation_run_id: 'r1' } },
  },
  {
    endpoint: 'GET /v2/{entity}/{project}/evaluation_runs/{evaluation_run_id}',
    name: 'v2.evaluationRuns.read',
    call: (c) => c.trace.v2.evaluationRuns.read('r1'),
    path: `${V2}/evaluation_runs/r1`,
    response: { json: { evaluation_run_id: 'r1', evaluation: 'weave:///e', model: 'weave:///m', status: 'running' } },
  },
  {
    endpoint: 'POST /v2/{entity}/{project}/evaluation_runs/{evaluation_run_id}/finish',
    name: 'v2.evaluationRuns.finish',
    call: (c) => c.trace.v2.evaluationRuns.finish('r1', { summary: { accuracy: 0.9 } }),
    path: `${V2}/evaluation_runs/r1/finish`,
    body: { summary: { accuracy: 0.9 } },
    response: { json: { success: true } },
  },
  {
    endpoint: 'DELETE /v2/{entity}/{project}/predictions',
    name: 'v2.predictions.delete',
    call: (c) => c.trace.v2.predictions.delete({ prediction_ids: ['p1', 'p2'] }),
    path: `${V2}/predictions`,
    query: { prediction_ids: ['p1', 'p2'] },
    response: { json: { num_deleted: 2 } },
  },
  {
    endpoint: 'GET /v2/{entity}/{project}/predictions',
    name: 'v2.predictions.list',
    call: (c) => collect(c.trace.v2.predictions.list({ evaluation_run_id: 'r1' })),
    path: `${V2}/predictions`,
    query: { evaluation_run_id: 'r1' },
    response: { jsonl: [{ prediction_id: 'p1', model: 'weave:///m', inputs: {}, output: 1 }] },
  },
  {
    endpoint: 'POST /v2/{entity}/{project}/predictions',
    name: 'v2.predictions.create',
    call: (c) => c.trace.v2.predictions.create({ model: 'weave:///m', inputs: { q: 1 }, output: 2, evaluation_run_id: 'r1' }),
    path: `${V2}/predictions`,
    body: { model: 'weave:///m', inputs: { q: 1 }, output: 2, evaluation_run_id: 'r1' },
    response: { json: { prediction_id: 'p1' } },
  },
  {
    endpoint: 'GET /v2/{entity}/{project}/predictions/{prediction_id}',
    name: 'v2.predictions.read',
    call: (c) => c.trace.v2.predictions.read('p1'),
    path: `${V2}/predictions/p1`,
    response: { json: { prediction_id: 'p1', model: 'weave:///m', inputs: {}, output: 2 } },
  },
  {
    endpoint: 'POST /v2/{entity}/{project}/predictions/{prediction_id}/finish',
    name: 'v2.predictions.finish',
    call: (c) => c.trace.v2.predictions.finish('p1'),
    path: `${V2}/predictions/p1/finish`,
    response: { json: { success: true } },
  },
  {
    endpoint: 'POST /v2/{entity}/{project}/eval_results/query',
    name: 'v2.evalResults.query',
    call: (c) => c.trace.v2.evalResults.query({ evaluation_call_ids: ['ec1'], include_rows: true }),
    path: `${V2}/eval_results/query`,
    body: { evaluation_call_ids: ['ec1'], include_rows: true },
    response: { json: { total_rows: 4, rows: [] } },
  },
];

/** The four cases of a versioned v2 collection: list, create, delete, read. */
function objectCollectionCases(
  collection: 'evaluations' | 'ops' | 'datasets' | 'scorers' | 'models',
  label: string,
  createBody: Record<string, unknown>,
): EndpointCase[] {
  const resource = (c: Client) => c.trace.v2[collection] as unknown as {
    list(p?: object): AsyncIterable<unknown>;
    create(b: object): Promise<unknown>;
    delete(id: string, p?: object): Promise<unknown>;
    read(id: string, digest: string): Promise<unknown>;
  };
  const version = { object_id: `${label}-1`, digest: 'd1', version_index: 0, created_at: 'now' };
  return [
    {
      endpoint: `GET /v2/{entity}/{project}/${collection}`,
      name: `v2.${collection}.list`,
      call: (c) => collect(resource(c).list({ limit: 2, offset: 4 })),
      path: `${V2}/${collection}`,
      query: { limit: '2', offset: '4' },
      response: { jsonl: [version, { ...version, digest: 'd2' }] },
    },
    {
      endpoint: `POST /v2/{entity}/{project}/${collection}`,
      name: `v2.${collection}.create`,
      call: (c) => resource(c).create(createBody),
      path: `${V2}/${collection}`,
      body: createBody,
      response: { json: { digest: 'd1', object_id: `${label}-1`, version_index: 0 } },
    },
    {
      endpoint: `DELETE /v2/{entity}/{project}/${collection}/{object_id}`,
      name: `v2.${collection}.delete`,
      call: (c) => resource(c).delete(`${label}-1`, { digests: ['d1', 'd2'] }),
      path: `${V2}/${collection}/${label}-1`,
      query: { digests: ['d1', 'd2'] },
      response: { json: { num_deleted: 2 } },
    },
    {
      endpoint: `GET /v2/{entity}/{project}/${collection}/{object_id}/versions/{digest}`,
      name: `v2.${collection}.read`,
      call: (c) => resource(c).read(`${label}-1`, 'd1'),
      path: `${V2}/${collection}/${label}-1/versions/d1`,
      response: { json: version },
    },
  ];
}
