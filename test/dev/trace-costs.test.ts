import { describe, expect, it } from 'vitest';
import type { Client } from 'weft';
import { devClient } from './client-support.js';
import { tempDataFile } from './data-file.js';

/** The query language's type, as the Client takes it. */
type Query = Parameters<Client['trace']['costs']['purge']>[0]['query'];

const byLlm = (llm: string): Query => ({ $expr: { $eq: [{ $getField: 'llm_id' }, { $literal: llm }] } });

describe('weft dev: costs through the Client', () => {
  it('creates prices with the service defaults and returns one id per LLM', async () => {
    const { client } = await devClient();
    const { ids } = await client.trace.costs.create({ costs: { 'gpt-x': { prompt_token_cost: 0.01, completion_token_cost: 0.03 } } });
    expect(ids).toEqual([['gpt-x', expect.any(String)]]);
    const { results } = await client.trace.costs.query();
    expect(results).toEqual([
      {
        id: ids[0]![1],
        llm_id: 'gpt-x',
        prompt_token_cost: 0.01,
        completion_token_cost: 0.03,
        prompt_token_cost_unit: 'USD',
        completion_token_cost_unit: 'USD',
        effective_date: expect.any(String),
        provider_id: 'default',
      },
    ]);
  });

  it('queries prices with a query expression, selected fields, sort and paging', async () => {
    const { client } = await devClient();
    await client.trace.costs.create({
      costs: { a: { prompt_token_cost: 1, completion_token_cost: 2 }, b: { prompt_token_cost: 3, completion_token_cost: 4 } },
    });
    const one = await client.trace.costs.query({ query: byLlm('b'), fields: ['llm_id', 'prompt_token_cost'] });
    expect(one.results).toEqual([{ llm_id: 'b', prompt_token_cost: 3 }]);
    const paged = await client.trace.costs.query({ fields: ['llm_id'], sort_by: [{ field: 'llm_id', direction: 'desc' }], limit: 1, offset: 1 });
    expect(paged.results).toEqual([{ llm_id: 'a' }]);
  });

  it('purges the prices a query names by id and keeps the rest, refusing any other query with a 400 as the service does', async () => {
    const { client } = await devClient();
    const { ids } = await client.trace.costs.create({
      costs: {
        a: { prompt_token_cost: 1, completion_token_cost: 2 },
        b: { prompt_token_cost: 3, completion_token_cost: 4 },
        c: { prompt_token_cost: 5, completion_token_cost: 6 },
      },
    });
    const id = (llm: string) => ids.find(([l]) => l === llm)![1];
    await expect(client.trace.costs.purge({ query: byLlm('a') })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('Can only purge costs by specifying one or more cost ids'),
    });
    expect(await client.trace.costs.purge({ query: { $expr: { $eq: [{ $getField: 'id' }, { $literal: id('a') }] } } })).toEqual({});
    await client.trace.costs.purge({ query: { $expr: { $in: [{ $getField: 'id' }, [{ $literal: id('c') }]] } } });
    const { results } = await client.trace.costs.query({ fields: ['llm_id'] });
    expect(results).toEqual([{ llm_id: 'b' }]);
  });

  it('keeps prices apart per project', async () => {
    const { client } = await devClient();
    await client.trace.costs.create({ project_id: 'team/other', costs: { a: { prompt_token_cost: 1, completion_token_cost: 2 } } });
    expect((await client.trace.costs.query()).results).toEqual([]);
  });

  it('refuses a price without its completion cost with a 422 naming the field', async () => {
    const { client } = await devClient();
    // biome-ignore lint/suspicious/noExplicitAny: the point is a body the types would refuse
    const bad = { costs: { a: { prompt_token_cost: 1 } } } as any;
    await expect(client.trace.costs.create(bad)).rejects.toMatchObject({
      status: 422,
      detail: [{ loc: ['body', 'costs', 'a', 'completion_token_cost'], type: 'missing' }],
    });
  });

  it('keeps prices across a restart with a data file', async () => {
    const dataFile = tempDataFile();
    const first = await devClient({ dataFile });
    await first.client.trace.costs.create({ costs: { a: { prompt_token_cost: 1, completion_token_cost: 2 } } });
    await first.dev.close();
    const second = await devClient({ dataFile });
    expect((await second.client.trace.costs.query({ fields: ['llm_id'] })).results).toEqual([{ llm_id: 'a' }]);
  });
});
