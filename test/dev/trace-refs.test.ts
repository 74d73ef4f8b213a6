import { describe, expect, it } from 'vitest';
import { writeCall } from './call-writer.js';
import { devClient, PROJECT } from './client-support.js';

const ref = (path: string) => `weave:///${PROJECT}/${path}`;

describe('weft dev: reading refs through the Client', () => {
  it('reads object versions by digest and by latest, in the order asked', async () => {
    const { client } = await devClient();
    const first = await client.trace.objs.create({ obj: { object_id: 'prompt', val: { text: 'hi' } } });
    await client.trace.objs.create({ obj: { object_id: 'prompt', val: { text: 'bye' } } });
    const { vals } = await client.trace.refs.readBatch({ refs: [ref('object/prompt:latest'), ref(`object/prompt:${first.digest}`)] });
    expect(vals).toEqual([{ text: 'bye' }, { text: 'hi' }]);
  });

  it('follows a ref’s attr, key and index path into the value', async () => {
    const { client } = await devClient();
    const { digest } = await client.trace.objs.create({ obj: { object_id: 'cfg', val: { model: { names: ['a', 'b'] } } } });
    const { vals } = await client.trace.refs.readBatch({ refs: [ref(`object/cfg:${digest}/attr/model/key/names/index/1`)] });
    expect(vals).toEqual(['b']);
  });

  it('reads a call and a table’s rows', async () => {
    const { client } = await devClient();
    await writeCall(client, { id: 'c1', trace_id: 't1' });
    const table = await client.trace.tables.create({ table: { rows: [{ n: 1 }] } });
    const { vals } = await client.trace.refs.readBatch({ refs: [ref('call/c1'), ref(`table/${table.digest}`)] });
    expect(vals).toEqual([expect.objectContaining({ id: 'c1', trace_id: 't1' }), [{ n: 1 }]]);
  });

  it('reads a ref that names nothing stored as null', async () => {
    const { client } = await devClient();
    expect(await client.trace.refs.readBatch({ refs: [ref('object/nope:latest')] })).toEqual({ vals: [null] });
  });

  it('reads a path through inherited properties such as constructor or __proto__ as null', async () => {
    const { client } = await devClient();
    const { digest } = await client.trace.objs.create({ obj: { object_id: 'cfg', val: { model: { names: ['a'] } } } });
    const refs = ['attr/constructor', 'key/__proto__', 'attr/model/attr/__proto__', 'attr/model/key/names/attr/length'];
    const { vals } = await client.trace.refs.readBatch({ refs: refs.map((path) => ref(`object/cfg:${digest}/${path}`)) });
    expect(vals).toEqual([null, null, null, null]);
  });

  it('refuses a ref with a malformed percent escape with a 422 naming its position', async () => {
    const { client } = await devClient();
    for (const bad of [ref('object/cfg%zz:latest'), ref('object/cfg:latest/attr/a%E0%A4%A')]) {
      await expect(client.trace.refs.readBatch({ refs: [ref('call/c1'), bad] })).rejects.toMatchObject({
        status: 422,
        detail: [{ loc: ['body', 'refs', 1] }],
      });
    }
  });

  it('refuses a string that is not a weave ref with a 422 naming its position', async () => {
    const { client } = await devClient();
    await expect(client.trace.refs.readBatch({ refs: [ref('call/c1'), 'https://example.com'] })).rejects.toMatchObject({
      status: 422,
      detail: [{ loc: ['body', 'refs', 1] }],
    });
  });
});
