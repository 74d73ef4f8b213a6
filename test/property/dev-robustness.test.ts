import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevService, SPEC_PATHS, startDevService } from 'weft/dev';
import { otlpExport, ROUTED } from '../dev/otlp-bytes.js';
import { text } from './arbitraries.js';
import { DEEP, exchange, type Exchange, type J, nasty, nearValid, P, withDeep } from './dev-fuzz-support.js';
import { runs } from './runs.js';

/**
 * weft dev on random requests to every path of the service interface: random JSON, valid bodies with fields dropped,
 * added or retyped, random query strings and path parameters. It never answers a 5xx (a 501 only for an operation it
 * does not serve), every error is worded as its service words it (a 422's `loc` pointing into the body it refuses),
 * and it keeps answering.
 */

let dev: DevService;
const ids: Record<string, string> = {};

const post = async (path: string, body: unknown) => {
  const res = await exchange(`${dev.url}${path}`, 'POST', JSON.stringify(body));
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${res.text}`);
  return JSON.parse(res.text);
};

beforeAll(async () => {
  dev = await startDevService({ port: 0, log: false, maxBodyBytes: 256 * 1024 });
  const call = await post('/call/start', { start: { project_id: P, op_name: 'op', started_at: '2026-01-01T00:00:00Z', attributes: {}, inputs: { a: 1 } } });
  ids.call = call.id;
  ids.trace = call.trace_id;
  const obj = await post('/obj/create', { obj: { project_id: P, object_id: 'o', val: { a: 1 } } });
  ids.digest = obj.digest;
  ids.table = (await post('/table/create', { table: { project_id: P, rows: [{ a: 1 }, { a: 2 }] } })).digest;
  ids.feedback = (await post('/feedback/create', { project_id: P, weave_ref: `weave:///${P}/call/${call.id}`, feedback_type: 'note', payload: { note: 'x' } })).id;
  ids.queue = (await post('/annotation_queues', { project_id: P, name: 'q', scorer_refs: [] })).id;
  const added = await post(`/annotation_queues/${ids.queue}/items`, { project_id: P, call_ids: [call.id], display_fields: [] });
  ids.item = added.items?.[0]?.id ?? 'item';
  const model = await exchange(`${dev.v1Url}/preview/models`, 'POST', JSON.stringify({ project: 'proj', name: 'm', base_model: 'OpenPipe/Qwen3-14B-Instruct' }));
  ids.model = JSON.parse(model.text).id;
});

afterAll(async () => {
  await dev?.close();
});

/** A valid body per route, where one is known: the seed the near-valid bodies are mutated from. */
function validBodies(): Record<string, J> {
  const ref = `weave:///${P}/call/${ids.call}`;
  const query: J = { $expr: { $eq: [{ $getField: 'id' }, { $literal: ids.feedback! }] } };
  const start = { project_id: P, op_name: 'op', started_at: '2026-01-01T00:00:00Z', attributes: {}, inputs: { q: 'hi' } };
  const end = { project_id: P, id: ids.call!, ended_at: '2026-01-01T00:00:01Z', summary: {}, output: 'out' };
  return {
    'POST /call/start': { start },
    'POST /call/end': { end },
    'POST /call/upsert_batch': { batch: [{ mode: 'start', req: { start } }, { mode: 'end', req: { end } }] },
    'POST /call/read': { project_id: P, id: ids.call! },
    'POST /call/update': { project_id: P, call_id: ids.call!, display_name: 'n' },
    'POST /calls/delete': { project_id: P, call_ids: ['nope'] },
    'POST /calls/query_stats': { project_id: P, filter: { op_names: ['op'] }, query: { $expr: { $eq: [{ $getField: 'op_name' }, { $literal: 'op' }] } } },
    'POST /calls/stream_query': {
      project_id: P,
      filter: { trace_roots_only: true },
      query: { $expr: { $gt: [{ $getField: 'started_at' }, { $literal: 0 }] } },
      sort_by: [{ field: 'started_at', direction: 'desc' }],
      limit: 5,
      offset: 0,
      columns: ['id', 'inputs.a'],
      expand_columns: ['inputs.a'],
      include_feedback: true,
    },
    'POST /calls/stats': { project_id: P, start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z', usage_metrics: [{ metric: 'input_tokens' }] },
    'POST /calls/usage': { project_id: P, call_ids: [ids.call!], include_costs: true },
    'POST /trace/usage': { project_id: P, filter: { trace_ids: [ids.trace!] }, include_costs: true },
    'POST /cost/create': { project_id: P, costs: { gpt: { prompt_token_cost: 1, completion_token_cost: 2 } } },
    'POST /cost/query': { project_id: P, limit: 3 },
    'POST /cost/purge': { project_id: P, query: { $expr: { $eq: [{ $getField: 'id' }, { $literal: 'x' }] } } },
    'POST /feedback/create': { project_id: P, weave_ref: ref, feedback_type: 'note', payload: { note: 'x' } },
    'POST /feedback/batch/create': { batch: [{ project_id: P, weave_ref: ref, feedback_type: 'note', payload: {} }] },
    'POST /feedback/replace': { project_id: P, weave_ref: ref, feedback_type: 'note', payload: {}, feedback_id: ids.feedback! },
    'POST /feedback/query': { project_id: P, fields: ['id', 'payload'], query, sort_by: [{ field: 'created_at', direction: 'asc' }], limit: 2 },
    'POST /feedback/purge': { project_id: P, query: { $expr: { $eq: [{ $getField: 'id' }, { $literal: 'none' }] } } },
    'POST /feedback/stats': { project_id: P, start: '2026-01-01T00:00:00Z' },
    'POST /file/content': { project_id: P, digest: 'x' },
    'POST /files/query_stats': { project_id: P },
    'POST /obj/create': { obj: { project_id: P, object_id: 'o2', val: { a: [1, 2] } } },
    'POST /obj/delete': { project_id: P, object_id: 'none', digests: ['x'] },
    'POST /obj/read': { project_id: P, object_id: 'o', digest: ids.digest! },
    'POST /objs/query': { project_id: P, filter: { object_ids: ['o'], latest_only: true }, sort_by: [{ field: 'created_at', direction: 'desc' }], limit: 2 },
    'PUT /objs/{object_id}/aliases': { project_id: P, digest: ids.digest!, aliases: ['prod'] },
    'POST /objs/{object_id}/aliases/remove': { project_id: P, aliases: ['prod'] },
    'PUT /objs/{object_id}/versions/{digest}/tags': { project_id: P, tags: ['t'] },
    'POST /objs/{object_id}/versions/{digest}/tags/remove': { project_id: P, tags: ['t'] },
    'POST /refs/read_batch': { refs: [`weave:///${P}/object/o:${ids.digest}`] },
    'POST /table/create': { table: { project_id: P, rows: [{ a: 1 }] } },
    'POST /table/create_from_digests': { project_id: P, row_digests: [] },
    'POST /table/query': { project_id: P, digest: ids.table!, sort_by: [{ field: 'a', direction: 'desc' }], limit: 1, offset: 1 },
    'POST /table/query_stream': { project_id: P, digest: ids.table! },
    'POST /table/query_stats': { project_id: P, digest: ids.table! },
    'POST /table/query_stats_batch': { project_id: P, digests: [ids.table!], include_storage_size: true },
    'POST /table/update': { project_id: P, base_digest: ids.table!, updates: [{ append: { row: { a: 3 } } }, { pop: { index: 0 } }, { insert: { index: 0, row: { a: 0 } } }] },
    'POST /threads/stream_query': { project_id: P, limit: 2, sort_by: [{ field: 'last_updated', direction: 'desc' }] },
    'POST /annotation_queues': { project_id: P, name: 'q2', scorer_refs: ['weave:///team/proj/object/s:abc'] },
    'POST /annotation_queues/query': { project_id: P, limit: 2 },
    'POST /annotation_queues/stats': { project_id: P, queue_ids: [ids.queue!] },
    'PUT /annotation_queues/{queue_id}': { project_id: P, name: 'renamed' },
    'POST /annotation_queues/{queue_id}/items': { project_id: P, call_ids: [ids.call!], display_fields: ['inputs.a'] },
    'POST /annotation_queues/{queue_id}/items/query': { project_id: P, limit: 2 },
    'POST /annotation_queues/{queue_id}/items/{item_id}/progress': { project_id: P, annotation_state: 'completed' },
    'POST /v1/chat/completions': { model: 'weft-dev/offline-echo', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 },
    'POST /v1/chat/completions/': { model: 'weft-dev/offline-echo', messages: [{ role: 'user', content: 'hi' }], stream: true },
    'POST /v1/preview/models': { project: 'proj', name: 'm2', base_model: 'b', return_existing: true },
    'DELETE /v1/preview/models/{model_id}/checkpoints': { steps: [1] },
    'POST /v1/preview/models/{model_id}/log': { trajectory_groups: [], split: 'val' },
    'POST /v1/preview/sft-training-jobs': { model_id: ids.model!, training_data_url: 'https://example.com/d.jsonl' },
    'POST /v1/preview/training-jobs': { model_id: ids.model!, trajectory_groups: [] },
    'POST /v2/{entity}/{project}/datasets': { name: 'd', rows: [{ a: 1 }] },
    'POST /v2/{entity}/{project}/ops': { name: 'op', source_code: 'def f(): pass' },
    'POST /v2/{entity}/{project}/scorers': { name: 's', op_source_code: 'def s(): pass' },
    'POST /v2/{entity}/{project}/models': { name: 'm', source_code: 'class M: pass' },
    'POST /v2/{entity}/{project}/scores': { prediction_id: 'p', scorer: 's', value: 1 },
    'POST /v2/{entity}/{project}/predictions': { model: 'm', inputs: {}, output: 1 },
    'POST /v2/{entity}/{project}/evaluation_runs': { evaluation: 'e', model: 'm' },
  };
}

/** Text with its lone surrogates replaced, which `encodeURIComponent` refuses. */
const wellFormed = (t: string) => t.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

/** A path parameter: one that exists, or random text, percent-encoded or raw. */
function param(name: string): fc.Arbitrary<string> {
  const known: Record<string, string | undefined> = {
    object_id: 'o',
    digest: ids.digest,
    queue_id: ids.queue,
    item_id: ids.item,
    entity: 'team',
    project: 'proj',
    model_id: ids.model,
    training_job_id: ids.model,
  };
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(encodeURIComponent(known[name] ?? 'x')) },
    { weight: 2, arbitrary: text(12).map((t) => encodeURIComponent(wellFormed(t))) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%ff', '..', '00000000-0000-0000-0000-000000000000', '%2F', 'a%00b', '%F0%9F%A6%8A') },
  ).filter((s) => s !== '' && s !== '.' && s !== '..');
}

const queryString: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom('project_id', 'limit', 'offset', 'after', 'before', 'entity', 'project', 'sort_by', 'digest', 'stream'), text(6)),
      fc.oneof(fc.constantFrom(P, '0', '-1', '1e3', '99999999999999999999', 'NaN', '', 'true', '[1]'), text(8)),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${new URLSearchParams(pairs).toString()}`));

/** The service a path belongs to, which decides how its errors are worded. */
function styleOf(path: string): 'openai' | 'fastapi' | 'weave' {
  // The inference service's chat (and model list) are OpenAI's; the trailing-slash twin and `/training/v1` are the
  // training service's, a FastAPI app.
  if (path === '/v1/chat/completions' || path === '/v1/models') return 'openai';
  if (path.startsWith('/v1/') || path.startsWith('/training/')) return 'fastapi';
  return 'weave';
}

const ALLOWED = new Set([200, 201, 204, 400, 404, 405, 409, 413, 415, 422]);

/** Walks a 422 issue's `loc` into the body it refused: every step but a missing field's last one exists. */
function locPointsIntoBody(body: unknown, loc: (string | number)[], type: string): boolean {
  if (loc[0] !== 'body') return loc[0] === 'query' || loc[0] === 'path';
  let at: unknown = body;
  for (const [i, key] of loc.slice(1).entries()) {
    const last = i === loc.length - 2;
    if (at === null || typeof at !== 'object') return false;
    const has = Array.isArray(at) ? typeof key === 'number' && key < at.length : Object.hasOwn(at, key);
    if (!has) return last && type === 'missing';
    at = (at as Record<string | number, unknown>)[key];
  }
  return true;
}

/** Checks one answer against the property; returns why it fails, or undefined. */
function judge(route: string, path: string, body: unknown, res: Exchange, served: boolean): string | undefined {
  if (!ALLOWED.has(res.status) && !(res.status === 501 && !served)) return `status ${res.status}`;
  if (res.status < 300) {
    if (res.text === '') return undefined;
    if (res.type.includes('jsonl')) {
      for (const line of res.text.split('\n').filter((l) => l !== '')) JSON.parse(line);
    } else if (res.type.includes('json')) {
      JSON.parse(res.text);
    }
    return undefined;
  }
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(res.text);
  } catch {
    return `error body is not JSON: ${res.text.slice(0, 200)}`;
  }
  // An operation weft dev does not serve is answered by the router alone (its 501, 405 or 400), as FastAPI's
  // `{detail}`; on a served trace path the router words its refusals as the trace service does.
  const style = !served ? 'fastapi-or-weave' : styleOf(path);
  if (style === 'openai') {
    const error = parsed.error as Record<string, unknown> | undefined;
    if (!error || typeof error.message !== 'string' || typeof error.type !== 'string' || !('param' in error) || !('code' in error)) {
      return `not an OpenAI error: ${res.text.slice(0, 200)}`;
    }
    return undefined;
  }
  if (res.status === 422 && Array.isArray(parsed.detail)) {
    for (const issue of parsed.detail as { loc: unknown; msg: unknown; type: unknown }[]) {
      if (!Array.isArray(issue.loc) || typeof issue.msg !== 'string' || typeof issue.type !== 'string') return `malformed issue ${JSON.stringify(issue)}`;
      if (!locPointsIntoBody(body, issue.loc, issue.type)) return `loc ${JSON.stringify(issue.loc)} (${issue.type}) is not in the body`;
    }
    return undefined;
  }
  if (style === 'weave' && typeof parsed.reason === 'string') return undefined;
  if (style !== 'weave' && typeof parsed.detail === 'string') return undefined;
  if (style === 'fastapi-or-weave' && typeof parsed.reason === 'string') return undefined;
  return `${route}: error not worded as its service's (${style}): ${res.text.slice(0, 200)}`;
}

/** Every spec path, and the training service's copies of its `/v1` routes under `/training`. */
const ROUTES: (readonly [string, string])[] = [
  ...SPEC_PATHS.map(([m, p]) => [m, p] as const),
  ...SPEC_PATHS.filter(([, p]) => p.startsWith('/v1/preview')).map(([m, p]) => [m, `/training${p}`] as const),
];

interface Case {
  method: string;
  template: string;
  path: string;
  query: string;
  /** How deep a DEEP in the body nests: around and past the 1000 levels a body may have. */
  depth: number;
  body: { kind: 'none' } | { kind: 'raw'; text: string; type: string } | { kind: 'json'; value: J };
}

function caseFor(valid: Record<string, J>): fc.Arbitrary<Case> {
  return fc.constantFrom(...ROUTES).chain(([method, template]) => {
    const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const seed = valid[`${method} ${template.replace(/^\/training/, '')}`];
    const body: fc.Arbitrary<Case['body']> = fc.oneof(
      { weight: seed === undefined ? 0 : 6, arbitrary: seed === undefined ? fc.constant({ kind: 'none' as const }) : nearValid(seed).map((value) => ({ kind: 'json' as const, value })) },
      { weight: seed === undefined ? 0 : 1, arbitrary: fc.constant({ kind: 'json' as const, value: seed ?? null }) },
      { weight: 2, arbitrary: nasty.map((value) => ({ kind: 'json' as const, value })) },
      { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('raw' as const),
          text: fc.oneof(text(30), fc.constantFrom('{', '{"a":', '[1,]', '\ufeff{}', '{"project_id":"team/proj"}x', 'null')),
          type: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/vnd.api+json', ''),
        }),
      },
    );
    return fc.record({
      method: fc.oneof({ weight: 9, arbitrary: fc.constant(method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH') }),
      template: fc.constant(template),
      path: fc.tuple(...names.map(param)).map((values) => names.reduce((p, name, i) => p.replace(`{${name}}`, values[i]!), template)),
      query: queryString,
      depth: fc.oneof(fc.integer({ min: 2, max: 200 }), fc.integer({ min: 990, max: 1010 }), fc.integer({ min: 1011, max: 8000 })),
      body,
    });
  });
}

/** Reads that must keep answering whatever was written before them. */
const READS: [string, unknown][] = [
  ['/calls/stream_query', { project_id: P, sort_by: [{ field: 'inputs.a', direction: 'asc' }] }],
  ['/objs/query', { project_id: P }],
  ['/feedback/query', { project_id: P }],
];

/** The text a case sends as its body, if any. */
function bodyText(c: Case): string | undefined {
  if (c.body.kind === 'none' || c.method === 'GET' || c.method === 'HEAD') return undefined;
  return c.body.kind === 'raw' ? c.body.text : withDeep(JSON.stringify(c.body.value), c.depth);
}

async function send(c: Case): Promise<Exchange> {
  const url = `${dev.url}${c.path}${c.query}`;
  // GET and HEAD carry no body in fetch.
  return exchange(url, c.method, bodyText(c), c.body.kind === 'raw' ? c.body.type : undefined);
}

describe('weft dev on random requests', () => {
  it('never answers a 5xx (501 only for an unserved operation), words every error as its service does, and keeps answering', async () => {
    const valid = validBodies();
    const servedRoutes = new Set(
      (await Promise.all(ROUTES.map(async ([m, p]) => [m, p, (await exchange(`${dev.url}${p.replace(/\{\w+\}/g, 'x')}`, m)).status] as const)))
        .filter(([, , status]) => status !== 501)
        .map(([m, p]) => `${m} ${p}`),
    );
    await fc.assert(
      fc.asyncProperty(caseFor(valid), async (c) => {
        const res = await send(c);
        const served = servedRoutes.has(`${ROUTES.find(([, p]) => p === c.template)?.[0]} ${c.template}`);
        const sent = bodyText(c);
        const body = c.body.kind === 'json' && sent !== undefined ? JSON.parse(sent) : undefined;
        const problem = judge(`${c.method} ${c.template}`, c.path, body, res, served);
        expect(problem, `${c.method} ${c.path}${c.query} -> ${res.status} ${res.text.slice(0, 300)}`).toBeUndefined();
        // Still answering, reads of what was written included: a value it stored must not break them.
        for (const [path, read] of READS) {
          const after = await exchange(`${dev.url}${path}`, 'POST', JSON.stringify(read));
          expect(after.status, `${path} after ${c.method} ${c.path}: ${after.text.slice(0, 300)}`).toBe(200);
        }
      }),
      {
        ...runs(1500),
        examples: [
          // A trace path's malformed percent-encoding was refused as FastAPI's `{detail}`, not the trace service's `{reason}`.
          [{ method: 'PUT', template: '/objs/{object_id}/aliases', path: '/objs/%ff/aliases', query: '', depth: 2, body: { kind: 'json', value: {} } }],
          // A v2 delete's bare list was refused at `['body', 'evaluation_run_ids', 0]`, a field the body does not have.
          [{ method: 'DELETE', template: '/v2/{entity}/{project}/evaluation_runs', path: '/v2/team/proj/evaluation_runs', query: '', depth: 2, body: { kind: 'json', value: [1] } }],
        ],
      },
    );
  });

  it('keeps answering queries after an OTLP export whose attributes hold JSON text of any depth', async () => {
    const attribute = fc.oneof(
      text(20),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc.tuple(fc.jsonValue({ maxDepth: 2 }), fc.integer({ min: 2, max: 8000 })).map(([v, depth]) => withDeep(JSON.stringify([v, DEEP]), depth)),
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom('input.value', 'output.value', 'weave.custom', 'gen_ai.prompt'), attribute), async (attributes) => {
        // A service of its own, so that a case that breaks it shrinks to itself.
        const own = await startDevService({ port: 0, log: false });
        try {
          const { bytes } = otlpExport([{ name: 'span', attributes }], ROUTED);
          const res = await fetch(`${own.url}/otel/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', project_id: P }, body: bytes });
          expect(res.status).toBe(200);
          await res.text();
          for (const [path, read] of READS) {
            const after = await exchange(`${own.url}${path}`, 'POST', JSON.stringify(read));
            expect(after.status, `${path}: ${after.text.slice(0, 300)}`).toBe(200);
          }
        } finally {
          await own.close();
        }
      }),
      runs(60),
    );
  });
});
