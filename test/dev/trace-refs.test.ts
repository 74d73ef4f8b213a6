import { describe, expect, it } from 'vitest';
import { writeCall } from './call-writer.js';
import { devClient, PROJECT } from './client-support.js';

const ref = (path: string) => `weave:///${PROJECT}/${path}`;

describe('weft dev: reading refs through the Client', () => {
  it('reads object versions by digest, in the order asked', async () => {
    const { client } = await devClient();
    const first = await client.trace.objs.create({ obj: { object_id: 'prompt', val: { text: 'hi' } } });
    const second = await client.trace.objs.create({ obj: { object_id: 'prompt', val: { text: 'bye' } } });
    const { vals } = await client.trace.refs.readBatch({ refs: [ref(`object/prompt:${second.digest}`), ref(`object/prompt:${first.digest}`)] });
    expect(vals).toEqual([{ text: 'bye' }, { text: 'hi' }]);
  });

  it('refuses `latest` with a 400 and answers a digest that names nothing with a 404, as the service does', async () => {
    const { client } = await devClient();
    const { digest } = await client.trace.objs.create({ obj: { object_id: 'prompt', val: { text: 'hi' } } });
    const good = ref(`object/prompt:${digest}`);
    await expect(client.trace.refs.readBatch({ refs: [good, ref('object/prompt:latest')] })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('Reading refs with `latest` is not supported'),
    });
    // The service reads refs by digest only: neither `v0` nor an alias is one.
    await client.trace.objs.setAliases('prompt', { digest, aliases: ['prod'] });
    for (const name of ['nope', 'v0', 'prod']) {
      await expect(client.trace.refs.readBatch({ refs: [good, ref(`object/prompt:${name}`)] }), name).rejects.toMatchObject({ status: 404 });
    }
  });

  it('refuses call and table refs with a 400: the service reads those through /call/read and /table/query', async () => {
    const { client } = await devClient();
    await writeCall(client, { id: 'c1', trace_id: 't1' });
    const table = await client.trace.tables.create({ table: { rows: [{ n: 1 }] } });
    for (const [path, message] of [['call/c1', 'Call refs not supported'], [`table/${table.digest}`, 'Table refs not supported']] as const) {
      await expect(client.trace.refs.readBatch({ refs: [ref(path)] })).rejects.toMatchObject({ status: 400, message: expect.stringContaining(message) });
    }
  });

  it('follows refs met along the path, and a dataset row by its digest', async () => {
    const { client } = await devClient();
    const table = await client.trace.tables.create({ table: { rows: [{ q: 'a' }, { q: 'b' }] } });
    const dataset = await client.trace.objs.create({ obj: { object_id: 'ds', val: { rows: ref(`table/${table.digest}`) } } });
    const model = await client.trace.objs.create({ obj: { object_id: 'm', val: { dataset: ref(`object/ds:${dataset.digest}`) } } });
    const row = `attr/rows/id/${table.row_digests[1]}`;
    const { vals } = await client.trace.refs.readBatch({
      refs: [ref(`object/ds:${dataset.digest}/${row}`), ref(`object/m:${model.digest}/attr/dataset/${row}/key/q`)],
    });
    expect(vals).toEqual([{ q: 'b' }, 'b']);
  });

  it('follows a ref’s attr, key and index path into the value', async () => {
    const { client } = await devClient();
    const { digest } = await client.trace.objs.create({ obj: { object_id: 'cfg', val: { model: { names: ['a', 'b'] } } } });
    const { vals } = await client.trace.refs.readBatch({ refs: [ref(`object/cfg:${digest}/attr/model/key/names/index/1`)] });
    expect(vals).toEqual(['b']);
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
      await expect(client.trace.refs.readBatch({ refs: [ref('object/cfg:d'), bad] })).rejects.toMatchObject({
        status: 422,
        detail: [{ loc: ['body', 'refs', 1] }],
      });
    }
  });

  it('refuses a string that is not a weave ref with a 422 naming its position', async () => {
    const { client } = await devClient();
    await expect(client.trace.refs.readBatch({ refs: [ref('object/cfg:d'), 'https://example.com'] })).rejects.toMatchObject({
      status: 422,
      detail: [{ loc: ['body', 'refs', 1] }],
    });
  });
});
