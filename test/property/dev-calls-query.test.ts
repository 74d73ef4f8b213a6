import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type J, useDevService } from './dev-fuzz-support.js';
import { runs } from './runs.js';

/**
 * `/calls/stream_query` and `/calls/query_stats` on random calls, filters, queries and orders: pages of any size put
 * together are the unpaged answer, no call twice; the count is the number of calls streamed; and the order is a
 * total one, so that the calls of any subset come in the order they have in the whole answer.
 */

const { post } = useDevService();
let project = 0;

async function ids(body: Record<string, unknown>): Promise<string[]> {
  const text = await post('/calls/stream_query', { ...body, columns: ['id'] });
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (JSON.parse(l) as { id: string }).id);
}

/** Values that sort and compare differently as numbers, text, datetimes and JSON. */
const mixed: fc.Arbitrary<J> = fc.constantFrom<J>(
  null,
  0,
  5,
  9,
  10,
  -1,
  2.5,
  '5',
  '10',
  '9',
  'a',
  'B',
  '',
  ' ',
  true,
  false,
  '1970-01-01T00:00:09Z',
  '1970-01-01T00:00:10Z',
  '2026-01-01',
  '1969-12-31T23:59:59Z',
  [1, 2],
  { a: 1 },
);

/**
 * When calls start: instants a second apart, some before 1970, and dates the service's parser reads (Date.parse) that are
 * outside years 0000 to 9999, which weft dev keeps as sent.
 */
const STARTS = [
  '2026-01-01T00:00:00Z',
  '2026-01-01T00:00:01Z',
  '1969-12-31T23:59:59Z',
  '1969-12-31T23:59:57Z',
  '2026-01-01T00:00:02.5Z',
  '-200000-01-01T00:00:00Z',
  '+010000-01-01T00:00:00Z',
];

interface CallSpec {
  op: string;
  at: number;
  ended: boolean;
  endAt: number;
  display: string | null;
  x: J | undefined;
  output: J;
  error: boolean;
  parent: number | null;
}

const callSpec: fc.Arbitrary<CallSpec> = fc.record({
  op: fc.constantFrom('a', 'b', 'c'),
  at: fc.nat({ max: STARTS.length - 1 }),
  ended: fc.boolean(),
  endAt: fc.nat({ max: 4 }),
  display: fc.option(fc.constantFrom('5', '10', '9', 'x', '1970-01-01T00:00:09Z', '1970-01-01T00:00:10Z', '2026-01-01', '')),
  x: fc.option(mixed, { nil: undefined }),
  output: mixed,
  error: fc.boolean(),
  parent: fc.option(fc.nat()),
});

const SORT_FIELDS = ['started_at', 'ended_at', 'op_name', 'display_name', 'id', 'inputs.x', 'output', 'output.a', 'exception', 'summary.weave.latency_ms', 'summary.weave.status', 'trace_id', 'parent_id'];
const sortBy = fc.array(fc.record({ field: fc.constantFrom(...SORT_FIELDS), direction: fc.constantFrom('asc', 'desc') }), { maxLength: 3 });

const QUERY_FIELDS = ['op_name', 'display_name', 'inputs.x', 'output', 'started_at', 'exception', 'summary.weave.status', 'summary.weave.latency_ms'];
const literal: fc.Arbitrary<J> = fc.constantFrom<J>(0, 5, 10, '5', '10', 'a', 'x', '1970-01-01T00:00:09Z', true, null, '');
const leaf: fc.Arbitrary<J> = fc.oneof(
  fc.record({
    op: fc.constantFrom('$eq', '$gt', '$gte', '$lt', '$lte'),
    field: fc.constantFrom(...QUERY_FIELDS),
    value: literal,
    convert: fc.option(fc.constantFrom('double', 'string', 'int', 'bool')),
  }).map(({ op, field, value, convert }) => {
    const get: J = convert === null ? { $getField: field } : { $convert: { input: { $getField: field }, to: convert } };
    return { [op]: [get, { $literal: value }] };
  }),
  fc.record({ field: fc.constantFrom(...QUERY_FIELDS), values: fc.array(literal, { maxLength: 3 }) }).map(({ field, values }) => ({
    $in: [{ $getField: field }, values.map((v) => ({ $literal: v }))],
  })),
  fc.record({ field: fc.constantFrom(...QUERY_FIELDS), sub: fc.constantFrom('', '1', 'a', 'X'), ci: fc.boolean() }).map(({ field, sub, ci }) => ({
    $contains: { input: { $getField: field }, substr: { $literal: sub }, case_insensitive: ci },
  })),
);
const expr: fc.Arbitrary<J> = fc.letrec<{ e: J }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('e'), { minLength: 1, maxLength: 3 }).map((es) => ({ $and: es })),
    fc.array(tie('e'), { minLength: 1, maxLength: 3 }).map((es) => ({ $or: es })),
    tie('e').map((e) => ({ $not: [e] })),
  ),
})).e;

describe('calls queries on random calls', () => {
  it('pages add up to the whole answer, the count is its length, and the order is total', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(callSpec, { minLength: 1, maxLength: 14 }),
        fc.record({
          filter: fc.option(
            fc.record(
              { op_names: fc.subarray(['a', 'b', 'c']), trace_roots_only: fc.boolean() },
              { requiredKeys: [] },
            ),
          ),
          query: fc.option(expr),
          sort_by: sortBy,
        }),
        fc.integer({ min: 1, max: 5 }),
        fc.infiniteStream(fc.boolean()),
        async (specs, q, pageSize, chooser) => {
          const projectId = `team/q${project++}`;
          const made: { id: string; trace: string }[] = [];
          const batch: unknown[] = [];
          for (const [i, s] of specs.entries()) {
            const id = `019a0000-0000-7000-8000-${String(i).padStart(12, '0')}`;
            const parent = s.parent === null || made.length === 0 ? undefined : made[s.parent % made.length]!;
            const trace = parent?.trace ?? `019a0000-0000-7000-9000-${String(i).padStart(12, '0')}`;
            made.push({ id, trace });
            const start = {
              project_id: projectId,
              id,
              trace_id: trace,
              ...(parent ? { parent_id: parent.id } : {}),
              op_name: s.op,
              display_name: s.display,
              started_at: STARTS[s.at]!,
              attributes: {},
              inputs: s.x === undefined ? {} : { x: s.x },
            };
            batch.push({ mode: 'start', req: { start } });
            if (s.ended) {
              const end = {
                project_id: projectId,
                id,
                ended_at: new Date(Date.UTC(2026, 0, 1, 0, 0, s.endAt)).toISOString(),
                summary: {},
                output: s.output,
                ...(s.error ? { exception: 'boom' } : {}),
              };
              batch.push({ mode: 'end', req: { end } });
            }
          }
          await post('/call/upsert_batch', { batch });

          const base = { project_id: projectId, filter: q.filter ?? undefined, query: q.query === null ? undefined : { $expr: q.query }, sort_by: q.sort_by };
          const whole = await ids(base);
          expect(new Set(whole).size).toBe(whole.length);

          const paged: string[] = [];
          for (let offset = 0; offset <= whole.length; offset += pageSize) paged.push(...(await ids({ ...base, limit: pageSize, offset })));
          expect(paged).toEqual(whole);

          const stats = JSON.parse(await post('/calls/query_stats', { project_id: projectId, filter: base.filter, query: base.query })) as { count: number };
          expect(stats.count).toBe(whole.length);

          // A subset of the answer, picked by id, comes in the order the whole answer has it.
          const it = chooser[Symbol.iterator]();
          const subset = whole.filter(() => it.next().value);
          if (subset.length > 0) {
            const filter = { ...(base.filter ?? {}), call_ids: subset };
            expect(await ids({ ...base, filter })).toEqual(subset);
          }
        },
      ),
      runs(300),
    );
  });
});
