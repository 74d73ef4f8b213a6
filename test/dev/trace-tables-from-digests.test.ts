import { describe, expect, it } from 'vitest';
import { devClient } from './client-support.js';
import { tempDataFile } from './data-file.js';

describe('weft dev: /table/create_from_digests takes digests of rows not stored yet, as the service does', () => {
  it('creates the table, counts every digest, and reads a row once one of its digest is stored', async () => {
    const { client } = await devClient();
    const known = await client.trace.tables.create({ table: { rows: [{ n: 1 }] } });
    const later = { n: 2 };
    // The digest /table/create gives the row, learnt from a throwaway table in another project.
    const other = await client.trace.tables.create({ table: { project_id: 'team/other', rows: [later] } });
    const [laterDigest] = other.row_digests;
    const unknown = 'f'.repeat(64);

    const { digest } = await client.trace.tables.createFromDigests({ row_digests: [unknown, known.row_digests[0]!, laterDigest!] });
    expect((await client.trace.tables.queryStats({ digest })).count).toBe(3);
    // Rows no one stored are left out of a read, their places still counted.
    expect((await client.trace.tables.query({ digest })).rows).toEqual([{ digest: known.row_digests[0], val: { n: 1 }, original_index: 1 }]);

    await client.trace.tables.create({ table: { rows: [later] } });
    expect((await client.trace.tables.query({ digest })).rows.map((r) => [r.val, r.original_index])).toEqual([
      [{ n: 1 }, 1],
      [{ n: 2 }, 2],
    ]);
  });

  it('gives the digest a table of the same rows has, and keeps a digest-only row through updates and a restart', async () => {
    const dataFile = tempDataFile();
    const first = await devClient({ dataFile });
    const unknown = 'e'.repeat(64);
    const { digest } = await first.client.trace.tables.createFromDigests({ row_digests: [unknown] });
    const updated = await first.client.trace.tables.update({ base_digest: digest, updates: [{ append: { row: { n: 3 } } }] });
    await first.dev.close();

    const second = await devClient({ dataFile });
    expect((await second.client.trace.tables.queryStats({ digest: updated.digest })).count).toBe(2);
    const popped = await second.client.trace.tables.update({ base_digest: updated.digest, updates: [{ pop: { index: 0 } }] });
    expect(popped.updated_row_digests).toEqual([unknown]);
    const same = await second.client.trace.tables.create({ table: { rows: [{ n: 3 }] } });
    expect(popped.digest).toBe(same.digest);
  });
});
