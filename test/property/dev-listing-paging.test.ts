import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type J, useDevService } from './dev-fuzz-support.js';
import { runs } from './runs.js';

/**
 * The other listings of weft dev on random records and orders: a table's rows, feedback and objects come in pages
 * that put together are the unpaged answer, nothing twice, and a table's row count is the number of its rows.
 */

const devService = useDevService();
let project = 0;

async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  return JSON.parse(await devService.post(path, body));
}

/** Values that order differently as numbers, text and JSON, and keys present or not. */
const cell: fc.Arbitrary<J> = fc.constantFrom<J>(null, 0, 5, 10, -1, 2.5, '5', '10', 'a', 'B', '', true, false, [1], { a: 1 }, '1970-01-01T00:00:09Z');
const row = fc.record({ x: cell, y: cell }, { requiredKeys: [] }) as fc.Arbitrary<J>;
const direction = fc.constantFrom('asc', 'desc');

/** Pages of `size` from `listing(limit, offset)` until one comes back short. */
async function pages<T>(size: number, listing: (limit: number, offset: number) => Promise<T[]>): Promise<T[]> {
  const all: T[] = [];
  for (let offset = 0; ; offset += size) {
    const page = await listing(size, offset);
    all.push(...page);
    if (page.length < size || offset > 1000) return all;
  }
}

describe('listings on random records', () => {
  it("a table's rows, sorted any way, page into the unpaged answer; the row count is theirs", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { maxLength: 12 }),
        fc.array(fc.record({ field: fc.constantFrom('x', 'y', 'val.x', 'x.a'), direction }), { maxLength: 2 }),
        fc.integer({ min: 1, max: 5 }),
        async (rows, sortBy, size) => {
          const projectId = `team/t${project++}`;
          const { digest } = (await post('/table/create', { table: { project_id: projectId, rows } })) as { digest: string };
          const query = { project_id: projectId, digest, sort_by: sortBy };
          const whole = ((await post('/table/query', query)).rows as { digest: string; original_index: number }[]).map((r) => r.original_index);
          expect([...whole].sort((a, b) => a - b)).toEqual(rows.map((_, i) => i));
          const paged = await pages(size, async (limit, offset) =>
            ((await post('/table/query', { ...query, limit, offset })).rows as { original_index: number }[]).map((r) => r.original_index),
          );
          expect(paged).toEqual(whole);
          expect((await post('/table/query_stats', { project_id: projectId, digest })).count).toBe(rows.length);
        },
      ),
      runs(300),
    );
  });

  it('feedback and objects, sorted any way, page into the unpaged answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ type: fc.constantFrom('a', 'b', 'c'), payload: row, object: fc.constantFrom('o1', 'o2', 'o3') }), { minLength: 1, maxLength: 10 }),
        fc.array(fc.record({ field: fc.constantFrom('feedback_type', 'created_at', 'id', 'payload.x', 'payload.y', 'weave_ref'), direction }), { maxLength: 2 }),
        fc.array(fc.record({ field: fc.constantFrom('object_id', 'created_at'), direction }), { maxLength: 2 }),
        fc.integer({ min: 1, max: 4 }),
        async (records, feedbackSort, objectSort, size) => {
          const projectId = `team/f${project++}`;
          for (const r of records) {
            await post('/feedback/create', { project_id: projectId, weave_ref: `weave:///${projectId}/call/c`, feedback_type: r.type, payload: r.payload });
            await post('/obj/create', { obj: { project_id: projectId, object_id: r.object, val: r.payload } });
          }
          const fq = { project_id: projectId, sort_by: feedbackSort };
          const feedback = ((await post('/feedback/query', fq)).result as { id: string }[]).map((f) => f.id);
          expect(new Set(feedback).size).toBe(records.length);
          expect(await pages(size, async (limit, offset) => ((await post('/feedback/query', { ...fq, limit, offset })).result as { id: string }[]).map((f) => f.id))).toEqual(feedback);

          const oq = { project_id: projectId, sort_by: objectSort };
          const key = (o: { object_id: string; digest: string }) => `${o.object_id}:${o.digest}`;
          const objects = ((await post('/objs/query', oq)).objs as { object_id: string; digest: string }[]).map(key);
          expect(new Set(objects).size).toBe(objects.length);
          expect(await pages(size, async (limit, offset) => ((await post('/objs/query', { ...oq, limit, offset })).objs as { object_id: string; digest: string }[]).map(key))).toEqual(objects);
        },
      ),
      runs(120),
    );
  });
});
