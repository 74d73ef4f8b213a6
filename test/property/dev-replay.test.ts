import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DevService, startDevService } from 'weft/dev';
import { text } from './arbitraries.js';
import { exchange, type J, nearValid, P } from './dev-fuzz-support.js';
import { runs } from './runs.js';

/**
 * weft dev's data file on random sequences of writes (calls, objects and their labels, tables, feedback, costs,
 * annotation queues and their items, training models), with bounds small enough that records are evicted and the
 * file compacted: a service started anew on the file answers every read as the one that wrote it did.
 */

type Op =
  | { op: 'start'; name: string; parent: number | null; inputs: J; at: number }
  | { op: 'end'; call: number; output: J; error: boolean }
  | { op: 'batch'; name: string; output: J; at: number }
  | { op: 'update'; call: number; name: string }
  | { op: 'deleteCalls'; call: number }
  | { op: 'objCreate'; id: number; val: J }
  | { op: 'objDelete'; id: number; some: boolean }
  | { op: 'alias'; id: number; alias: string }
  | { op: 'tag'; id: number; tag: string; remove: boolean }
  | { op: 'tableCreate'; rows: J[] }
  | { op: 'tableUpdate'; table: number; row: J; pop: boolean }
  | { op: 'feedback'; call: number; type: string; payload: J }
  | { op: 'feedbackReplace'; feedback: number; payload: J }
  | { op: 'feedbackPurge'; feedback: number }
  | { op: 'cost'; model: string; prompt: number; completion: number }
  | { op: 'costPurge'; cost: number }
  | { op: 'queue'; name: string }
  | { op: 'queueUpdate'; queue: number; name: string }
  | { op: 'queueDelete'; queue: number }
  | { op: 'items'; queue: number; call: number }
  | { op: 'progress'; item: number; state: string }
  | { op: 'model'; name: string }
  | { op: 'modelDelete'; model: number }
  | { op: 'job'; model: number; fail: boolean };

const small = fc.nat({ max: 20 });
const name = fc.oneof(fc.constantFrom('a', 'b', 'c'), text(6));
const value: fc.Arbitrary<J> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<J>,
  text(10),
  fc.constantFrom<J>(null, 0, -0.5, 1e300, { a: { b: [1, 'x', null] } }),
);
const objectVal = fc.dictionary(fc.oneof(fc.constantFrom('a', 'b'), text(4)), value, { maxKeys: 3 }) as fc.Arbitrary<J>;

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('start' as const), name, parent: fc.option(small), inputs: objectVal, at: fc.nat({ max: 1000 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('end' as const), call: small, output: value, error: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('batch' as const), name, output: value, at: fc.nat({ max: 1000 }) }) },
  fc.record({ op: fc.constant('update' as const), call: small, name: text(8) }),
  fc.record({ op: fc.constant('deleteCalls' as const), call: small }),
  { weight: 2, arbitrary: fc.record({ op: fc.constant('objCreate' as const), id: fc.nat({ max: 1 }), val: objectVal }) },
  fc.record({ op: fc.constant('objDelete' as const), id: fc.nat({ max: 1 }), some: fc.boolean() }),
  fc.record({ op: fc.constant('alias' as const), id: fc.nat({ max: 1 }), alias: fc.constantFrom('prod', 'dev') }),
  fc.record({ op: fc.constant('tag' as const), id: fc.nat({ max: 1 }), tag: fc.constantFrom('t1', 't2'), remove: fc.boolean() }),
  fc.record({ op: fc.constant('tableCreate' as const), rows: fc.array(objectVal, { maxLength: 4 }) }),
  fc.record({ op: fc.constant('tableUpdate' as const), table: small, row: objectVal, pop: fc.boolean() }),
  { weight: 2, arbitrary: fc.record({ op: fc.constant('feedback' as const), call: small, type: fc.constantFrom('note', 'custom', 'wandb.note.1'), payload: objectVal }) },
  fc.record({ op: fc.constant('feedbackReplace' as const), feedback: small, payload: objectVal }),
  fc.record({ op: fc.constant('feedbackPurge' as const), feedback: small }),
  fc.record({ op: fc.constant('cost' as const), model: fc.constantFrom('gpt', 'llama'), prompt: fc.double({ min: 0, max: 1, noNaN: true }), completion: fc.nat() }),
  fc.record({ op: fc.constant('costPurge' as const), cost: small }),
  fc.record({ op: fc.constant('queue' as const), name }),
  fc.record({ op: fc.constant('queueUpdate' as const), queue: small, name }),
  fc.record({ op: fc.constant('queueDelete' as const), queue: small }),
  { weight: 3, arbitrary: fc.record({ op: fc.constant('items' as const), queue: small, call: small }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('progress' as const), item: small, state: fc.constantFrom('in_progress', 'completed', 'skipped') }) },
  fc.record({ op: fc.constant('model' as const), name: fc.constantFrom('m1', 'm2') }),
  fc.record({ op: fc.constant('modelDelete' as const), model: small }),
  fc.record({ op: fc.constant('job' as const), model: small, fail: fc.boolean() }),
);

/** What the writes made: ids to aim the next writes and the reads at. */
interface Made {
  calls: string[];
  traces: string[];
  objects: Map<string, string[]>;
  tables: string[];
  feedback: string[];
  queues: string[];
  items: [string, string][];
  models: string[];
  costs: string[];
  jobs: string[];
}

const pick = <T>(list: T[], i: number): T | undefined => (list.length === 0 ? undefined : list[i % list.length]);
const iso = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms * 1000).toISOString();

/** While set, what the writes send instead of their bodies (a body near a valid one). */
let mutate: ((body: J) => J) | undefined;

async function call(dev: DevService, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const sent = body !== undefined && mutate ? mutate(body as J) : body;
  const res = await exchange(`${dev.url}${path}`, method, sent === undefined ? undefined : JSON.stringify(sent));
  if (res.status >= 500) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
  const parsed = res.text === '' ? undefined : res.type.includes('jsonl') ? res.text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)) : JSON.parse(res.text);
  return { status: res.status, body: parsed };
}

async function apply(dev: DevService, op: Op, made: Made): Promise<void> {
  const callId = (i: number) => pick(made.calls, i) ?? 'none';
  const feedbackQuery = (id: string) => ({ $expr: { $eq: [{ $getField: 'id' }, { $literal: id }] } });
  switch (op.op) {
    case 'start': {
      const parent = op.parent === null ? undefined : pick(made.calls, op.parent);
      const trace = parent === undefined ? undefined : made.traces[made.calls.indexOf(parent)];
      const start = { project_id: P, op_name: op.name, started_at: iso(op.at), attributes: {}, inputs: op.inputs, ...(parent ? { parent_id: parent, trace_id: trace } : {}) };
      const res = await call(dev, 'POST', '/call/start', { start });
      if (res.status === 200) {
        const b = res.body as { id: string; trace_id: string };
        made.calls.push(b.id);
        made.traces.push(b.trace_id);
      }
      return;
    }
    case 'end':
      await call(dev, 'POST', '/call/end', {
        end: { project_id: P, id: callId(op.call), ended_at: iso(2000), summary: {}, output: op.output, ...(op.error ? { exception: 'boom' } : {}) },
      });
      return;
    case 'batch': {
      const id = `019a0000-0000-7000-8000-${String(made.calls.length).padStart(12, '0')}`;
      const trace = `019a0000-0000-7000-9000-${String(made.calls.length).padStart(12, '0')}`;
      const start = { project_id: P, id, trace_id: trace, op_name: op.name, started_at: iso(op.at), attributes: {}, inputs: {} };
      const end = { project_id: P, id, ended_at: iso(op.at + 1), summary: {}, output: op.output };
      const res = await call(dev, 'POST', '/call/upsert_batch', { batch: [{ mode: 'start', req: { start } }, { mode: 'end', req: { end } }] });
      if (res.status === 200 && !made.calls.includes(id)) {
        made.calls.push(id);
        made.traces.push(trace);
      }
      return;
    }
    case 'update':
      await call(dev, 'POST', '/call/update', { project_id: P, call_id: callId(op.call), display_name: op.name });
      return;
    case 'deleteCalls':
      await call(dev, 'POST', '/calls/delete', { project_id: P, call_ids: [callId(op.call)] });
      return;
    case 'objCreate': {
      const res = await call(dev, 'POST', '/obj/create', { obj: { project_id: P, object_id: `o${op.id}`, val: op.val } });
      if (res.status === 200) {
        const list = made.objects.get(`o${op.id}`) ?? [];
        list.push((res.body as { digest: string }).digest);
        made.objects.set(`o${op.id}`, list);
      }
      return;
    }
    case 'objDelete': {
      const digests = made.objects.get(`o${op.id}`) ?? [];
      await call(dev, 'POST', '/obj/delete', { project_id: P, object_id: `o${op.id}`, ...(op.some && digests.length > 0 ? { digests: [digests[0]] } : {}) });
      return;
    }
    case 'alias': {
      const digest = made.objects.get(`o${op.id}`)?.at(-1) ?? 'none';
      await call(dev, 'PUT', `/objs/o${op.id}/aliases`, { project_id: P, digest, aliases: [op.alias] });
      return;
    }
    case 'tag': {
      const digest = made.objects.get(`o${op.id}`)?.at(-1) ?? 'none';
      await call(dev, op.remove ? 'POST' : 'PUT', `/objs/o${op.id}/versions/${digest}/tags${op.remove ? '/remove' : ''}`, { project_id: P, tags: [op.tag] });
      return;
    }
    case 'tableCreate': {
      const res = await call(dev, 'POST', '/table/create', { table: { project_id: P, rows: op.rows } });
      if (res.status === 200) made.tables.push((res.body as { digest: string }).digest);
      return;
    }
    case 'tableUpdate': {
      const base = pick(made.tables, op.table) ?? 'none';
      const res = await call(dev, 'POST', '/table/update', { project_id: P, base_digest: base, updates: [op.pop ? { pop: { index: 0 } } : { append: { row: op.row } }] });
      if (res.status === 200) made.tables.push((res.body as { digest: string }).digest);
      return;
    }
    case 'feedback': {
      const res = await call(dev, 'POST', '/feedback/create', { project_id: P, weave_ref: `weave:///${P}/call/${callId(op.call)}`, feedback_type: op.type, payload: op.payload });
      if (res.status === 200) made.feedback.push((res.body as { id: string }).id);
      return;
    }
    case 'feedbackReplace': {
      const id = pick(made.feedback, op.feedback);
      if (id === undefined) return;
      const res = await call(dev, 'POST', '/feedback/replace', { project_id: P, weave_ref: `weave:///${P}/call/${callId(0)}`, feedback_type: 'note', payload: op.payload, feedback_id: id });
      if (res.status === 200) made.feedback.push((res.body as { id: string }).id);
      return;
    }
    case 'feedbackPurge':
      await call(dev, 'POST', '/feedback/purge', { project_id: P, query: feedbackQuery(pick(made.feedback, op.feedback) ?? 'none') });
      return;
    case 'cost': {
      const res = await call(dev, 'POST', '/cost/create', { project_id: P, costs: { [op.model]: { prompt_token_cost: op.prompt, completion_token_cost: op.completion } } });
      if (res.status === 200) for (const [, id] of (res.body as { ids: [string, string][] }).ids) made.costs.push(id);
      return;
    }
    case 'costPurge':
      // The service purges costs by id only.
      await call(dev, 'POST', '/cost/purge', { project_id: P, query: { $expr: { $eq: [{ $getField: 'id' }, { $literal: pick(made.costs, op.cost) ?? 'none' }] } } });
      return;
    case 'queue': {
      const res = await call(dev, 'POST', '/annotation_queues', { project_id: P, name: op.name, scorer_refs: [] });
      if (res.status === 200) made.queues.push((res.body as { id: string }).id);
      return;
    }
    case 'queueUpdate':
      await call(dev, 'PUT', `/annotation_queues/${pick(made.queues, op.queue) ?? 'none'}`, { project_id: P, name: op.name });
      return;
    case 'queueDelete':
      await call(dev, 'DELETE', `/annotation_queues/${pick(made.queues, op.queue) ?? 'none'}?project_id=${encodeURIComponent(P)}`);
      return;
    case 'items': {
      const queue = pick(made.queues, op.queue);
      if (queue === undefined) return;
      const res = await call(dev, 'POST', `/annotation_queues/${queue}/items`, { project_id: P, call_ids: [callId(op.call)], display_fields: [] });
      if (res.status !== 200) return;
      // The add answers counts only: the items' ids are read back.
      const listed = await call(dev, 'POST', `/annotation_queues/${queue}/items/query`, { project_id: P });
      for (const item of (listed.body as { items?: { id: string }[] }).items ?? []) {
        if (!made.items.some(([, id]) => id === item.id)) made.items.push([queue, item.id]);
      }
      return;
    }
    case 'progress': {
      const item = pick(made.items, op.item);
      if (item === undefined) return;
      await call(dev, 'POST', `/annotation_queues/${item[0]}/items/${item[1]}/progress`, { project_id: P, annotation_state: op.state });
      return;
    }
    case 'model': {
      const res = await call(dev, 'POST', '/v1/preview/models', { project: 'proj', name: op.name, base_model: 'OpenPipe/Qwen3-14B-Instruct', return_existing: true });
      if (res.status === 200) made.models.push((res.body as { id: string }).id);
      return;
    }
    case 'job': {
      const model = pick(made.models, op.model);
      if (model === undefined) return;
      const experimental = op.fail ? { experimental_config: { simulate_failure: true } } : {};
      const res = await call(dev, 'POST', '/v1/preview/sft-training-jobs', { model_id: model, training_data_url: 'https://example.com/d.jsonl', ...experimental });
      if (res.status === 200) made.jobs.push((res.body as { id: string }).id);
      return;
    }
    case 'modelDelete': {
      const model = pick(made.models, op.model);
      if (model !== undefined) await call(dev, 'DELETE', `/v1/preview/models/${model}`);
      return;
    }
  }
}

/** Every read the writes could show in, with its status and body. */
async function snapshot(dev: DevService, made: Made): Promise<unknown[]> {
  const q = `?project_id=${encodeURIComponent(P)}`;
  const reads: [string, string, unknown?][] = [
    ['POST', '/calls/stream_query', { project_id: P, sort_by: [{ field: 'id', direction: 'asc' }], include_feedback: true }],
    ['POST', '/calls/query_stats', { project_id: P }],
    ['POST', '/threads/stream_query', { project_id: P }],
    ['POST', '/objs/query', { project_id: P, sort_by: [{ field: 'object_id', direction: 'asc' }] }],
    ['POST', '/objs/query', { project_id: P, filter: { latest_only: true } }],
    ['POST', '/feedback/query', { project_id: P, sort_by: [{ field: 'id', direction: 'asc' }] }],
    ['POST', '/cost/query', { project_id: P }],
    ['POST', '/annotation_queues/query', { project_id: P }],
    ['POST', '/annotation_queues/stats', { project_id: P, queue_ids: made.queues }],
    ['GET', `/aliases${q}`],
    ['GET', `/tags${q}`],
    ['POST', '/calls/usage', { project_id: P, call_ids: made.calls.slice(0, 20) }],
  ];
  for (const [object, digests] of made.objects) for (const digest of digests) reads.push(['POST', '/obj/read', { project_id: P, object_id: object, digest }]);
  for (const digest of new Set(made.tables)) reads.push(['POST', '/table/query', { project_id: P, digest }]);
  for (const id of made.calls) reads.push(['POST', '/call/read', { project_id: P, id }]);
  for (const queue of made.queues) {
    reads.push(['GET', `/annotation_queues/${queue}${q}`]);
    reads.push(['POST', `/annotation_queues/${queue}/items/query`, { project_id: P }]);
  }
  for (const model of new Set(made.models)) reads.push(['GET', `/v1/preview/models/${model}/checkpoints`]);
  for (const job of made.jobs) {
    reads.push(['GET', `/v1/preview/training-jobs/${job}`]);
    reads.push(['GET', `/v1/preview/training-jobs/${job}/events`]);
  }
  const answers: unknown[] = [];
  for (const [method, path, body] of reads) answers.push({ read: `${method} ${path}`, ...(await call(dev, method, path, body)) });
  return answers;
}

/** Writes `ops` to a fresh data file, then reads them back through a service started anew on it. */
async function roundTrip(ops: Op[], bounds: { maxTraces: number; maxRecords: number }, writeAs?: (body: J) => J): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-dev-replay-'));
  const dataFile = join(dir, 'data.jsonl');
  const made: Made = { calls: [], traces: [], objects: new Map(), tables: [], feedback: [], queues: [], items: [], models: [], costs: [], jobs: [] };
  try {
    const first = await startDevService({ port: 0, log: false, dataFile, trainingStepMs: 1, ...bounds });
    let before: unknown[];
    try {
      mutate = writeAs;
      try {
        for (const op of ops) await apply(first, op, made);
      } finally {
        mutate = undefined;
      }
      // A job still running when the service stops is failed on restart (documented): wait for every one to end.
      for (const job of made.jobs) {
        for (;;) {
          const state = (await call(first, 'GET', `/v1/preview/training-jobs/${job}`)).body as { training_end: unknown; error_message: unknown };
          if (state.training_end !== null || state.error_message !== null) break;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
      before = await snapshot(first, made);
    } finally {
      await first.close();
    }
    const second = await startDevService({ port: 0, log: false, dataFile, trainingStepMs: 1, ...bounds });
    try {
      expect(await snapshot(second, made)).toEqual(before);
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the data file on random writes', () => {
  it('a service started anew on it answers every read as the one that wrote it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 8, maxLength: 40 }),
        fc.record({ maxTraces: fc.integer({ min: 1, max: 40 }), maxRecords: fc.integer({ min: 1, max: 40 }) }),
        (ops, bounds) => roundTrip(ops, bounds),
      ),
      runs(60),
    );
  });

  it('keeps exactly the writes it answered when their bodies are near valid ones (fields dropped, added, retyped)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 8, maxLength: 40 }),
        fc.record({ maxTraces: fc.integer({ min: 1, max: 40 }), maxRecords: fc.integer({ min: 1, max: 40 }) }),
        fc.gen(),
        async (ops, bounds, g) => {
          // One write in three sent mutated; the reads of the snapshots are sent as they are.
          const apply = (body: J) => g(() => fc.oneof({ weight: 2, arbitrary: fc.constant(body) }, nearValid(body)));
          await roundTrip(ops, bounds, apply);
        },
      ),
      runs(40),
    );
  });
});
