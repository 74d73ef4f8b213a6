import { describe, expect, it } from 'vitest';
import { devClient } from './client-support.js';
import { tempDataFile } from './data-file.js';

type DevClient = Awaited<ReturnType<typeof devClient>>['client'];

/** Writes two versions of `prompt` and returns their digests, oldest first. */
async function twoVersions(client: DevClient): Promise<[string, string]> {
  const first = await client.trace.objs.create({ obj: { object_id: 'prompt', val: { text: 'hi' } } });
  const second = await client.trace.objs.create({ obj: { object_id: 'prompt', val: { text: 'bye' } } });
  return [first.digest, second.digest];
}

describe('weft dev: deleting objects through the Client', () => {
  it('deletes the named versions and leaves the rest, the newest remaining becoming latest', async () => {
    const { client } = await devClient();
    const [first, second] = await twoVersions(client);
    expect(await client.trace.objs.delete({ object_id: 'prompt', digests: [second] })).toEqual({ num_deleted: 1 });
    expect((await client.trace.objs.read({ object_id: 'prompt', digest: 'latest' })).obj).toMatchObject({ digest: first, is_latest: 1 });
  });

  it('deletes every version when no digests are given', async () => {
    const { client } = await devClient();
    await twoVersions(client);
    expect(await client.trace.objs.delete({ object_id: 'prompt' })).toEqual({ num_deleted: 2 });
    expect((await client.trace.objs.query({ filter: { object_ids: ['prompt'] } })).objs).toEqual([]);
  });

  it('answers 404 when deleting an object that is not stored', async () => {
    const { client } = await devClient();
    await expect(client.trace.objs.delete({ object_id: 'nope' })).rejects.toMatchObject({ status: 404 });
  });

  it('names versions to delete by digest, latest or v<N>, and deletes none when one name finds nothing', async () => {
    const { client } = await devClient();
    const [first, second] = await twoVersions(client);
    // The service deletes all or nothing: one name that finds no version is a 404, and both stay.
    await expect(client.trace.objs.delete({ object_id: 'prompt', digests: [first, 'nope'] })).rejects.toMatchObject({ status: 404 });
    expect((await client.trace.objs.query({ filter: { object_ids: ['prompt'] } })).objs.map((o) => o.digest)).toEqual([first, second]);
    expect(await client.trace.objs.delete({ object_id: 'prompt', digests: ['latest'] })).toEqual({ num_deleted: 1 });
    expect(await client.trace.objs.delete({ object_id: 'prompt', digests: ['v0'] })).toEqual({ num_deleted: 1 });
    expect((await client.trace.objs.query({ filter: { object_ids: ['prompt'] } })).objs).toEqual([]);
  });

  it('deletes every version for an empty digest list, as the service reads `if req.digests:`', async () => {
    const { client } = await devClient();
    await twoVersions(client);
    expect(await client.trace.objs.delete({ object_id: 'prompt', digests: [] })).toEqual({ num_deleted: 2 });
  });
});

describe('weft dev: the order of /objs/query', () => {
  it('sorts by object_id and created_at only, skipping any other field, with the version index last', async () => {
    const { client } = await devClient();
    for (const [id, val] of [['b', 1], ['a', 1], ['b', 2], ['a', 2]] as const) await client.trace.objs.create({ obj: { object_id: id, val } });
    const order = async (sort_by: { field: string; direction: 'asc' | 'desc' }[]) =>
      (await client.trace.objs.query({ sort_by })).objs.map((o) => `${o.object_id}:v${o.version_index}`);
    expect(await order([{ field: 'object_id', direction: 'desc' }])).toEqual(['b:v0', 'b:v1', 'a:v0', 'a:v1']);
    // Not a field the service sorts by: the default order, oldest first.
    expect(await order([{ field: 'version_index', direction: 'desc' }])).toEqual(['b:v0', 'a:v0', 'b:v1', 'a:v1']);
  });
});

describe('weft dev: aliases and tags of object versions, through the Client', () => {
  it('reads a version by an alias set on it', async () => {
    const { client } = await devClient();
    const [first] = await twoVersions(client);
    expect(await client.trace.objs.setAliases('prompt', { digest: first, aliases: ['prod'] })).toEqual({});
    expect((await client.trace.objs.read({ object_id: 'prompt', digest: 'prod' })).obj).toMatchObject({ digest: first, val: { text: 'hi' } });
  });

  it('moves an alias when it is set on another version', async () => {
    const { client } = await devClient();
    const [first, second] = await twoVersions(client);
    await client.trace.objs.setAliases('prompt', { digest: first, aliases: ['prod'] });
    await client.trace.objs.setAliases('prompt', { digest: second, aliases: ['prod'] });
    expect((await client.trace.objs.read({ object_id: 'prompt', digest: 'prod' })).obj.digest).toBe(second);
  });

  it('removes aliases, after which the name no longer reads', async () => {
    const { client } = await devClient();
    const [first] = await twoVersions(client);
    await client.trace.objs.setAliases('prompt', { digest: first, aliases: ['prod', 'staging'] });
    await client.trace.objs.removeAliases('prompt', { aliases: ['prod'] });
    await expect(client.trace.objs.read({ object_id: 'prompt', digest: 'prod' })).rejects.toMatchObject({ status: 404 });
    expect(await client.trace.objs.listAliases()).toEqual({ aliases: ['staging'] });
  });

  it('refuses an alias named latest with a 422 naming it', async () => {
    const { client } = await devClient();
    const [first] = await twoVersions(client);
    await expect(client.trace.objs.setAliases('prompt', { digest: first, aliases: ['latest'] })).rejects.toMatchObject({
      status: 422,
      detail: [{ loc: ['body', 'aliases', 0] }],
    });
  });

  it('answers 404 when aliasing a version that does not exist', async () => {
    const { client } = await devClient();
    await expect(client.trace.objs.setAliases('prompt', { digest: 'nope', aliases: ['prod'] })).rejects.toMatchObject({ status: 404 });
  });

  it('adds and removes tags on a version and lists the project’s tag names', async () => {
    const { client } = await devClient();
    const [first, second] = await twoVersions(client);
    await client.trace.objs.addTags('prompt', first, { tags: ['reviewed', 'draft'] });
    await client.trace.objs.addTags('prompt', second, { tags: ['reviewed'] });
    await client.trace.objs.removeTags('prompt', first, { tags: ['draft'] });
    expect(await client.trace.objs.listTags()).toEqual({ tags: ['reviewed'] });
  });

  it('forgets the aliases and tags of a deleted version', async () => {
    const { client } = await devClient();
    const [first] = await twoVersions(client);
    await client.trace.objs.setAliases('prompt', { digest: first, aliases: ['prod'] });
    await client.trace.objs.addTags('prompt', first, { tags: ['reviewed'] });
    await client.trace.objs.delete({ object_id: 'prompt', digests: [first] });
    expect(await client.trace.objs.listAliases()).toEqual({ aliases: [] });
    expect(await client.trace.objs.listTags()).toEqual({ tags: [] });
  });

  it('keeps aliases and tags across a restart with a data file', async () => {
    const dataFile = tempDataFile();
    const first = await devClient({ dataFile });
    const [digest] = await twoVersions(first.client);
    await first.client.trace.objs.setAliases('prompt', { digest, aliases: ['prod'] });
    await first.client.trace.objs.addTags('prompt', digest, { tags: ['reviewed'] });
    await first.dev.close();
    const second = await devClient({ dataFile });
    expect((await second.client.trace.objs.read({ object_id: 'prompt', digest: 'prod' })).obj.digest).toBe(digest);
    expect(await second.client.trace.objs.listTags()).toEqual({ tags: ['reviewed'] });
  });
});

describe('weft dev: the size of an object version', () => {
  it('answers size_bytes only when /objs/query asks for it, as the service selects it', async () => {
    const { client } = await devClient();
    const { digest } = await client.trace.objs.create({ obj: { object_id: 'prompt', val: { text: 'hi' } } });
    expect((await client.trace.objs.query()).objs[0]).toMatchObject({ size_bytes: null });
    expect((await client.trace.objs.query({ include_storage_size: true })).objs[0]?.size_bytes).toBeGreaterThan(0);
    expect((await client.trace.objs.read({ object_id: 'prompt', digest })).obj).toMatchObject({ size_bytes: null });
  });
});

describe('weft dev: /objs/query filters as the service reads them', () => {
  it('takes an empty list as no filter', async () => {
    const { client } = await devClient();
    await client.trace.objs.create({ obj: { object_id: 'a', val: { _class_name: 'Model' } } });
    await client.trace.objs.create({ obj: { object_id: 'b', val: 1 } });
    for (const key of ['object_ids', 'base_object_classes', 'leaf_object_classes', 'exclude_base_object_classes'] as const) {
      expect((await client.trace.objs.query({ filter: { [key]: [] } })).objs.map((o) => o.object_id), key).toEqual(['a', 'b']);
    }
    expect((await client.trace.objs.query({ filter: { exclude_base_object_classes: ['Model'] } })).objs.map((o) => o.object_id)).toEqual(['b']);
  });
});

describe('weft dev: object ids the service refuses', () => {
  it('refuses an object id longer than 128 characters with a 400, as the service validates it', async () => {
    const { client } = await devClient();
    await client.trace.objs.create({ obj: { object_id: 'x'.repeat(128), val: 1 } });
    await expect(client.trace.objs.create({ obj: { object_id: 'x'.repeat(129), val: 1 } })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('Max length is 128'),
    });
  });
});
