import { describe, expect, it } from 'vitest';
import { writeCall } from './call-writer.js';
import { devClient } from './client-support.js';
import { tempDataFile } from './data-file.js';

describe('weft dev: renaming and deleting calls through the Client', () => {
  it('renames a call, and reads and queries return the new display name', async () => {
    const { client } = await devClient();
    await writeCall(client, { id: 'c1', trace_id: 't1' });
    expect(await client.trace.calls.update({ call_id: 'c1', display_name: 'renamed' })).toEqual({});
    expect((await client.trace.calls.read({ id: 'c1' })).call).toMatchObject({ display_name: 'renamed' });
    const [queried] = await client.trace.calls.streamQuery({ filter: { call_ids: ['c1'] } }).collect();
    expect(queried).toMatchObject({ display_name: 'renamed' });
  });

  it('answers {} when renaming a call that is not stored, and 400 for an update without a display name, as the service does', async () => {
    const { client } = await devClient();
    expect(await client.trace.calls.update({ call_id: 'nope', display_name: 'x' })).toEqual({});
    await writeCall(client, { id: 'c1', trace_id: 't1' });
    await expect(client.trace.calls.update({ call_id: 'c1' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('One of [display_name] is required for call update'),
    });
  });

  it('deletes a call with its descendants and reports how many went', async () => {
    const { client } = await devClient();
    await writeCall(client, { id: 'root', trace_id: 't1' });
    await writeCall(client, { id: 'child', trace_id: 't1', parent_id: 'root' });
    await writeCall(client, { id: 'grandchild', trace_id: 't1', parent_id: 'child' });
    await writeCall(client, { id: 'other', trace_id: 't2' });
    expect(await client.trace.calls.delete({ call_ids: ['child'] })).toEqual({ num_deleted: 2 });
    const left = await client.trace.calls.streamQuery().collect();
    expect(left.map((c) => c.id).sort()).toEqual(['other', 'root']);
    expect((await client.trace.calls.queryStats()).count).toBe(2);
  });

  it('counts every id asked for when deleting, stored or not, as the service does', async () => {
    const { client } = await devClient();
    await writeCall(client, { id: 'root', trace_id: 't1' });
    await writeCall(client, { id: 'child', trace_id: 't1', parent_id: 'root' });
    expect(await client.trace.calls.delete({ call_ids: ['nope', 'root', 'child'] })).toEqual({ num_deleted: 3 });
    expect(await client.trace.calls.queryStats()).toEqual({ count: 0 });
  });

  it('refuses a delete without call_ids with a 422 naming the field', async () => {
    const { client } = await devClient();
    // biome-ignore lint/suspicious/noExplicitAny: the point is a body the types would refuse
    await expect(client.trace.calls.delete({} as any)).rejects.toMatchObject({
      status: 422,
      detail: [{ loc: ['body', 'call_ids'], type: 'missing' }],
    });
  });

  it('keeps renames and deletions across a restart with a data file', async () => {
    const dataFile = tempDataFile();
    const first = await devClient({ dataFile });
    await writeCall(first.client, { id: 'kept', trace_id: 't1' });
    await writeCall(first.client, { id: 'gone', trace_id: 't2' });
    await first.client.trace.calls.update({ call_id: 'kept', display_name: 'renamed' });
    await first.client.trace.calls.delete({ call_ids: ['gone'] });
    await first.dev.close();
    const second = await devClient({ dataFile });
    const calls = await second.client.trace.calls.streamQuery().collect();
    expect(calls.map((c) => [c.id, c.display_name])).toEqual([['kept', 'renamed']]);
  });
});
