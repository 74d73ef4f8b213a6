import { describe, expect, it } from 'vitest';
import type { Client } from 'weft';
import { writeCall } from './call-writer.js';
import { devClient } from './client-support.js';
import { dataLines, tempDataFile } from './data-file.js';

const FIVE = ['n0', 'n1', 'n2', 'n3', 'n4'];

/** Writes one feedback item per name, oldest first. */
async function feedback(client: Client, names: string[]): Promise<void> {
  for (const name of names) await client.trace.feedback.create({ weave_ref: 'weave:///team/proj/call/c1', feedback_type: name, payload: {} });
}

const feedbackTypes = async (client: Client) => (await client.trace.feedback.query()).result.map((f) => f.feedback_type);

describe('weft dev: feedback, costs, annotation queues and evaluation records are bounded like calls', () => {
  it('keeps the newest feedback past maxRecords, evicting the oldest, and says so', async () => {
    const lines: string[] = [];
    const { dev, client } = await devClient({ maxRecords: 3, log: (line) => lines.push(line) });
    await feedback(client, FIVE);
    expect(await feedbackTypes(client)).toEqual(['n2', 'n3', 'n4']);
    await dev.close();
    expect(lines.join('\n')).toMatch(/evicted 2 oldest record\(s\) to keep at most 3 of each kind/);
  });

  it('bounds costs, annotation queues and their items, and evaluation records, each kind on its own', async () => {
    const { client } = await devClient({ maxRecords: 3 });
    for (const name of FIVE) {
      await client.trace.costs.create({ costs: { [name]: { prompt_token_cost: 1, completion_token_cost: 1 } } });
      await client.trace.annotationQueues.create({ name, scorer_refs: [] });
      await client.trace.v2.evaluationRuns.create({ evaluation: `weave:///team/proj/object/${name}:e`, model: 'weave:///team/proj/object/bot:m' });
      await client.trace.v2.predictions.create({ model: 'weave:///team/proj/object/bot:m', inputs: {}, output: name });
      await writeCall(client, { id: name, trace_id: name });
    }
    // The newest queue comes first, as the service lists them.
    const queues = await client.trace.annotationQueues.streamQuery().collect();
    await client.trace.annotationQueues.addCalls(queues[0]!.id, { call_ids: FIVE, display_fields: [] });

    expect((await client.trace.costs.query()).results.map((c) => c.llm_id)).toEqual(['n2', 'n3', 'n4']);
    expect(queues.map((q) => q.name)).toEqual(['n4', 'n3', 'n2']);
    const { items } = await client.trace.annotationQueues.queryItems(queues[0]!.id);
    expect(items.map((i) => i.call_id)).toEqual(['n2', 'n3', 'n4']);
    const runs = await client.trace.v2.evaluationRuns.list().collect();
    expect(runs.map((r) => r.evaluation)).toEqual(['n2', 'n3', 'n4'].map((n) => `weave:///team/proj/object/${n}:e`));
    expect((await client.trace.v2.predictions.list().collect()).map((p) => p.output)).toEqual(['n2', 'n3', 'n4']);
  });

  it('keeps every alias and tag past maxRecords, since the object versions they label are not evicted', async () => {
    const { client } = await devClient({ maxRecords: 3 });
    for (const name of FIVE) {
      const { digest } = await client.trace.objs.create({ obj: { object_id: 'prompt', val: { text: name } } });
      await client.trace.objs.setAliases('prompt', { digest, aliases: [name] });
      await client.trace.objs.addTags('prompt', digest, { tags: [name] });
    }
    expect(await client.trace.objs.listAliases()).toEqual({ aliases: FIVE });
    expect(await client.trace.objs.listTags()).toEqual({ tags: FIVE });
  });

  it('keeps the bound and the newest records across a restart, also when the bound is lowered', async () => {
    const file = tempDataFile();
    const first = await devClient({ dataFile: file, maxRecords: 3 });
    await feedback(first.client, FIVE);
    await first.dev.close();

    const again = await devClient({ dataFile: file, maxRecords: 3 });
    expect(await feedbackTypes(again.client)).toEqual(['n2', 'n3', 'n4']);
    // The replay evicted what the first run had evicted, and rewrote the file without it.
    expect(dataLines(file)).toHaveLength(3);
    await again.dev.close();

    const lines: string[] = [];
    const lowered = await devClient({ dataFile: file, maxRecords: 2, log: (line) => lines.push(line) });
    expect(await feedbackTypes(lowered.client)).toEqual(['n3', 'n4']);
    expect(lines.join('\n')).toMatch(/evicted 1 oldest record\(s\) to keep at most 2 of each kind .* on replay/);
  });

  it('does not keep evicted records in the data file', async () => {
    const file = tempDataFile();
    const { client } = await devClient({ dataFile: file, maxRecords: 10 });
    const batch = Array.from({ length: 2500 }, (_, i) => ({ weave_ref: 'weave:///team/proj/call/c1', feedback_type: `n${i}`, payload: {} }));
    await client.trace.feedback.createBatch({ batch });
    expect(dataLines(file).length).toBeLessThan(1000);
    expect(await feedbackTypes(client)).toEqual(Array.from({ length: 10 }, (_, i) => `n${2490 + i}`));
  });
});
