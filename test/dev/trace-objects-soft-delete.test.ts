import { describe, expect, it } from 'vitest';
import { tempDataFile } from './data-file.js';
import { devService, post } from './support.js';

const P = 'team/proj';

/** Creates a version of `prompt` and returns its digest. */
async function version(url: string, text: string): Promise<string> {
  const { body } = await post(url, '/obj/create', { obj: { project_id: P, object_id: 'prompt', val: { text } } });
  return body.digest;
}

const query = async (url: string, filter: Record<string, unknown> = {}) =>
  (await post(url, '/objs/query', { project_id: P, filter: { object_ids: ['prompt'], ...filter } })).body.objs;

describe('weft dev: deleted object versions are soft-deleted, as the service keeps them', () => {
  it('reads a deleted version as deleted (404 with deleted_at), its ref as null, and leaves it out of queries', async () => {
    const { url } = await devService();
    const v0 = await version(url, 'a');
    const v1 = await version(url, 'b');
    expect((await post(url, '/obj/delete', { project_id: P, object_id: 'prompt', digests: [v1] })).body).toEqual({ num_deleted: 1 });

    const read = await post(url, '/obj/read', { project_id: P, object_id: 'prompt', digest: v1 });
    expect(read.status).toBe(404);
    expect(read.body).toEqual({ reason: expect.stringContaining('prompt:v1 was deleted at'), deleted_at: expect.any(String) });
    expect(Number.isNaN(Date.parse(read.body.deleted_at))).toBe(false);
    // By index too: v1 still names the deleted version, not nothing.
    expect((await post(url, '/obj/read', { project_id: P, object_id: 'prompt', digest: 'v1' })).body.deleted_at).toBe(read.body.deleted_at);

    const refs = await post(url, '/refs/read_batch', { refs: [`weave:///${P}/object/prompt:${v1}`, `weave:///${P}/object/prompt:${v0}`] });
    expect(refs.status).toBe(200);
    expect(refs.body.vals).toEqual([null, { text: 'a' }]);

    const live = await query(url);
    expect(live.map((o: { digest: string; version_index: number; is_latest: number }) => [o.digest, o.version_index, o.is_latest])).toEqual([[v0, 0, 1]]);
  });

  it('keeps counting indexes past deleted versions and brings a re-created deleted version back as the newest', async () => {
    const { url } = await devService();
    const v0 = await version(url, 'a');
    await version(url, 'b');
    await post(url, '/obj/delete', { project_id: P, object_id: 'prompt', digests: ['v1'] });
    const v2 = await version(url, 'c');
    expect((await query(url)).map((o: { version_index: number }) => o.version_index)).toEqual([0, 2]);

    // Every version deleted: `latest` names the newest of them, which reads as deleted.
    await post(url, '/obj/delete', { project_id: P, object_id: 'prompt' });
    expect(await query(url)).toEqual([]);
    const latest = await post(url, '/obj/read', { project_id: P, object_id: 'prompt', digest: 'latest' });
    expect(latest).toMatchObject({ status: 404, body: { deleted_at: expect.any(String) } });
    expect(latest.body.reason).toContain('prompt:v2 was deleted');

    expect(await version(url, 'a')).toBe(v0);
    const back = await query(url, { latest_only: true });
    expect(back.map((o: { digest: string; version_index: number; is_latest: number }) => [o.digest, o.version_index, o.is_latest])).toEqual([[v0, 3, 1]]);
    expect((await post(url, '/obj/read', { project_id: P, object_id: 'prompt', digest: v2 })).status).toBe(404);
  });

  it('answers a v2 read of a deleted version as deleted', async () => {
    const { url } = await devService();
    const { body } = await post(url, '/v2/team/proj/models', { name: 'bot', source_code: 'x' });
    const deleted = await fetch(`${url}/v2/team/proj/models/${body.object_id}?digests=${body.digest}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    const read = await fetch(`${url}/v2/team/proj/models/${body.object_id}/versions/${body.digest}`);
    expect(read.status).toBe(404);
    expect(await read.json()).toMatchObject({ deleted_at: expect.any(String) });
  });

  it('replays a deletion from the --data file with its time, indexes still counting past it', async () => {
    const dataFile = tempDataFile();
    const first = await devService({ dataFile });
    await version(first.url, 'a');
    const v1 = await version(first.url, 'b');
    await post(first.url, '/obj/delete', { project_id: P, object_id: 'prompt', digests: [v1] });
    const before = await post(first.url, '/obj/read', { project_id: P, object_id: 'prompt', digest: v1 });
    await first.close();

    const second = await devService({ dataFile });
    expect(await post(second.url, '/obj/read', { project_id: P, object_id: 'prompt', digest: v1 })).toMatchObject({ status: 404, body: before.body });
    expect((await query(second.url)).map((o: { version_index: number }) => o.version_index)).toEqual([0]);
    expect(await version(second.url, 'c')).toBeTruthy();
    expect((await query(second.url)).map((o: { version_index: number }) => o.version_index)).toEqual([0, 2]);
  });
});
