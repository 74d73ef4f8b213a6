import { describe, expect, it } from 'vitest';
import { devService, post, startBody, streamQuery } from './support.js';

const ref = (path: string) => `weave:///team/proj/${path}`;

describe('weft dev: expand_columns of /calls/stream_query', () => {
  it('replaces object refs at the named paths with their values, keeping the ref as _ref, shallow paths first', async () => {
    const dev = await devService();
    const prompt = (await post(dev.url, '/obj/create', { obj: { project_id: 'team/proj', object_id: 'p', val: { text: 'hi' } } })).body.digest;
    const model = (
      await post(dev.url, '/obj/create', { obj: { project_id: 'team/proj', object_id: 'm', val: { name: 'small', prompt: ref(`object/p:${prompt}`) } } })
    ).body.digest;
    await post(dev.url, '/call/start', startBody({ id: 'a', inputs: { model: ref(`object/m:${model}`), n: 1 } }));
    await post(dev.url, '/call/start', startBody({ id: 'b', inputs: { model: 'not a ref', n: 2 } }));

    const [a, b] = await streamQuery(dev.url, { project_id: 'team/proj', expand_columns: ['inputs.model.prompt', 'inputs.model'] });
    expect(a.inputs).toEqual({
      model: { name: 'small', prompt: { text: 'hi', _ref: ref(`object/p:${prompt}`) }, _ref: ref(`object/m:${model}`) },
      n: 1,
    });
    expect(b.inputs).toEqual({ model: 'not a ref', n: 2 });

    // Filters read the expanded values; with return_expanded_column_values false the refs come back as stored.
    const query = { $expr: { $eq: [{ $getField: 'inputs.model.name' }, { $literal: 'small' }] } };
    const filtered = await streamQuery(dev.url, { project_id: 'team/proj', expand_columns: ['inputs.model'], query, return_expanded_column_values: false });
    expect(filtered.map((c) => [c.id, c.inputs.model])).toEqual([['a', ref(`object/m:${model}`)]]);
    const stats = await post(dev.url, '/calls/query_stats', { project_id: 'team/proj', expand_columns: ['inputs.model'], query });
    expect(stats.body).toEqual({ count: 1 });
  });
});
