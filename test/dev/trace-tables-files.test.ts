import { describe, expect, it } from 'vitest';
import { writeCall } from './call-writer.js';
import { devClient } from './client-support.js';
import { tempDataFile } from './data-file.js';

type DevClient = Awaited<ReturnType<typeof devClient>>['client'];

/** A table of three rows `{n: 1}`, `{n: 2}`, `{n: 3}`. */
async function threeRows(client: DevClient) {
  return client.trace.tables.create({ table: { rows: [{ n: 1 }, { n: 2 }, { n: 3 }] } });
}

const values = async (client: DevClient, digest: string) => (await client.trace.tables.query({ digest })).rows.map((r) => r.val);

describe('weft dev: tables through the Client', () => {
  it('applies append, insert and pop in order, making a new table and naming the rows added', async () => {
    const { client } = await devClient();
    const base = await threeRows(client);
    const updated = await client.trace.tables.update({
      base_digest: base.digest,
      updates: [{ append: { row: { n: 4 } } }, { pop: { index: 0 } }, { insert: { index: 1, row: { n: 9 } } }],
    });
    expect(updated.digest).not.toBe(base.digest);
    expect(await values(client, updated.digest)).toEqual([{ n: 2 }, { n: 9 }, { n: 3 }, { n: 4 }]);
    expect(await values(client, base.digest)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    // One digest per change, in order, the popped row's too, as the service answers.
    const touched = await client.trace.tables.create({ table: { rows: [{ n: 4 }, { n: 1 }, { n: 9 }] } });
    expect(updated.updated_row_digests).toEqual(touched.row_digests);
  });

  it('refuses a pop or insert past the end with a 400 naming the update, as the service does', async () => {
    const { client } = await devClient();
    const base = await threeRows(client);
    for (const update of [{ pop: { index: 3 } }, { insert: { index: 4, row: { n: 0 } } }]) {
      await expect(client.trace.tables.update({ base_digest: base.digest, updates: [update] })).rejects.toMatchObject({
        status: 400,
        message: expect.stringMatching(/Index out of range: updates\[0\]\.(pop|insert)\.index/),
      });
    }
  });

  it('sorts rows by a path into the row, nothing first, then numbers, then text, as the service orders', async () => {
    const { client } = await devClient();
    const table = await client.trace.tables.create({ table: { rows: [{ n: 'b' }, { n: 2 }, {}, { n: 10 }, { n: true }] } });
    const order = async (field: string, direction: 'asc' | 'desc') =>
      (await client.trace.tables.query({ digest: table.digest, sort_by: [{ field, direction }] })).rows.map((r) => r.original_index);
    expect(await order('n', 'asc')).toEqual([2, 4, 1, 3, 0]);
    expect(await order('n', 'desc')).toEqual([0, 3, 1, 4, 2]);
    // The path is into the row itself: `val.n` names a column `val` the rows do not have, so the order stays.
    expect(await order('val.n', 'asc')).toEqual([0, 1, 2, 3, 4]);
  });

  it('answers no rows for a digest that names no table, as the service does', async () => {
    const { client } = await devClient();
    expect(await client.trace.tables.query({ digest: 'nope' })).toEqual({ rows: [] });
  });

  it('builds a table from stored row digests, giving the same digest as the same rows', async () => {
    const { client } = await devClient();
    const base = await threeRows(client);
    const [first, , third] = base.row_digests;
    const made = await client.trace.tables.createFromDigests({ row_digests: [third!, first!] });
    expect(await values(client, made.digest)).toEqual([{ n: 3 }, { n: 1 }]);
    expect((await client.trace.tables.create({ table: { rows: [{ n: 3 }, { n: 1 }] } })).digest).toBe(made.digest);
  });

  it('builds a table from rows of several tables, and not from another project’s rows', async () => {
    const { client } = await devClient();
    const first = await threeRows(client);
    const second = await client.trace.tables.create({ table: { rows: [{ m: 1 }, { m: 2 }] } });
    const other = await client.trace.tables.create({ table: { project_id: 'team/other', rows: [{ o: 1 }] } });
    const made = await client.trace.tables.createFromDigests({ row_digests: [second.row_digests[1]!, first.row_digests[0]!] });
    expect(await values(client, made.digest)).toEqual([{ m: 2 }, { n: 1 }]);
    // Another project's row is not this project's: the table is made (the service checks no digest) but reads no row.
    const foreign = await client.trace.tables.createFromDigests({ row_digests: [other.row_digests[0]!] });
    expect(await values(client, foreign.digest)).toEqual([]);
  });

  it('finds the rows of every table after the data file is replayed and compacted', async () => {
    const dataFile = tempDataFile();
    const first = await devClient({ dataFile });
    const base = await threeRows(first.client);
    const updated = await first.client.trace.tables.update({ base_digest: base.digest, updates: [{ append: { row: { n: 4 } } }] });
    for (const t of ['t1', 't2']) await writeCall(first.client, { id: t, trace_id: t });
    await first.dev.close();
    // With room for one trace, the replay evicts one and rewrites the file from the live state.
    await (await devClient({ dataFile, maxTraces: 1 })).dev.close();

    const { client } = await devClient({ dataFile });
    const made = await client.trace.tables.createFromDigests({ row_digests: [...updated.updated_row_digests, base.row_digests[1]!] });
    expect(await values(client, made.digest)).toEqual([{ n: 4 }, { n: 2 }]);
  });

  it('streams the rows of a query as JSONL, paged like /table/query', async () => {
    const { client } = await devClient();
    const base = await threeRows(client);
    const rows = await client.trace.tables.queryStream({ digest: base.digest, sort_by: [{ field: 'n', direction: 'desc' }], limit: 2 }).collect();
    expect(rows).toEqual([
      { digest: base.row_digests[2], val: { n: 3 }, original_index: 2 },
      { digest: base.row_digests[1], val: { n: 2 }, original_index: 1 },
    ]);
  });

  it('counts the rows of one table', async () => {
    const { client } = await devClient();
    const base = await threeRows(client);
    expect(await client.trace.tables.queryStats({ digest: base.digest })).toEqual({ count: 3 });
  });

  it('counts the rows of several tables, leaving out digests with no table', async () => {
    const { client } = await devClient();
    const base = await threeRows(client);
    const { tables } = await client.trace.tables.queryStatsBatch({ digests: [base.digest, 'nope'], include_storage_size: true });
    expect(tables).toEqual([{ count: 3, digest: base.digest, storage_size_bytes: 3 * '{"n":1}'.length }]);
  });
});

describe('weft dev: file statistics through the Client', () => {
  it('sums the sizes of the project’s files', async () => {
    const { client } = await devClient();
    await client.trace.files.create({ content: new TextEncoder().encode('hello') });
    await client.trace.files.create({ content: new TextEncoder().encode('bye'), project_id: 'team/other' });
    expect(await client.trace.files.stats()).toEqual({ total_size_bytes: 5 });
  });
});
