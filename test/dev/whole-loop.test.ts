import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallNode, Client, instrumentOpenAI, op, register, type WeftHandle, withThread } from 'weft';
import { type DevService, startDevService } from 'weft/dev';
import { opNameOf } from './support.js';

// The whole loop: an app traced by register() → OTLP protobuf → weft dev → weft's Client → the same data.
let dev: DevService;
let weft: WeftHandle;
let client: Client;
let openai: OpenAI;
const PROJECT = 'team/loop';
const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';

beforeAll(async () => {
  dev = await startDevService({ port: 0, log: false });
  instrumentOpenAI(OpenAI);
  weft = register({ baseUrl: dev.url, project: PROJECT, flushOnExit: false, logger: false });
  openai = new OpenAI({ baseURL: dev.v1Url, apiKey: 'local', maxRetries: 0 });
  client = new Client({ baseUrl: dev.url, project: PROJECT });
});

afterAll(async () => {
  await client.close();
  await weft.shutdown();
  await dev.close();
});

const answer = op(async function answer(question: string, style: { short: boolean }) {
  const res = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: question }] });
  return { text: res.choices[0]!.message.content, usage: res.usage!, short: style.short };
});

// The service stores an OTel call's op_name as an op ref; `:*` asks for every version of the op, as the SDKs do.
const anyVersionOf = (name: string) => `weave:///${PROJECT}/op/${name}:*`;

async function treeOf(traceId: string): Promise<CallNode[]> {
  return client.trace.calls.tree(traceId);
}

describe('the whole loop through weft dev', () => {
  it('reads back the inputs, output, usage and nesting the app produced', async () => {
    const result = await answer('What is 7 + 8?', { short: true });
    await weft.forceFlush();
    // This test's own call of `answer`: other tests call it too, and may have run first.
    const roots = await client.trace.calls.streamQuery({ filter: { op_names: [anyVersionOf('answer')] } }).collect();
    const root = roots.find((call) => (call.inputs as { question?: unknown }).question === 'What is 7 + 8?');
    const tree = await treeOf(root!.trace_id);

    expect(tree).toHaveLength(1);
    const [node] = tree;
    expect(opNameOf(node!.call)).toBe('answer');
    expect(node!.call.inputs).toEqual({ question: 'What is 7 + 8?', style: { short: true } });
    expect(node!.call.output).toEqual(result);
    expect(node!.children).toHaveLength(1);

    const chat = node!.children[0]!.call;
    expect(chat.parent_id).toBe(node!.call.id);
    expect(chat.summary?.usage?.[MODEL]).toMatchObject({
      input_tokens: result.usage.prompt_tokens,
      output_tokens: result.usage.completion_tokens,
      total_tokens: result.usage.total_tokens,
    });
    expect(chat.summary?.weave?.status).toBe('success');
    expect(JSON.stringify(chat.output)).toContain('7 + 8 = 15.');
    expect(JSON.stringify(chat.inputs)).toContain('What is 7 + 8?');
  });

  it('records a streamed chat call with the usage of the final chunk', async () => {
    const streamed = op(async function streamed() {
      const stream = await openai.chat.completions.create({
        model: MODEL,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'stream this please' }],
      });
      let usage: OpenAI.CompletionUsage | undefined;
      let text = '';
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        usage = chunk.usage ?? usage;
      }
      return { text, total: usage?.total_tokens };
    });
    const result = await streamed();
    await weft.forceFlush();
    const [root] = await client.trace.calls.streamQuery({ filter: { op_names: [anyVersionOf('streamed')] } }).collect();
    const [node] = await treeOf(root!.trace_id);
    expect(node!.call.output).toEqual(result);
    expect(node!.children[0]!.call.summary?.usage?.[MODEL]?.total_tokens).toBe(result.total);
    expect(JSON.stringify(node!.children[0]!.call.output)).toContain(result.text);
  });

  it('groups the turns of a thread by thread id, one turn per top-level call', async () => {
    const thread = `thread-${Date.now()}`;
    for (const q of ['What is 1 + 1?', 'What is 2 + 2?']) await withThread(thread, () => answer(q, { short: false }));
    await weft.forceFlush();
    const inThread = await client.trace.calls.streamQuery({ filter: { thread_ids: [thread] } }).collect();
    const turns = inThread.filter((c) => c.turn_id);
    expect(turns.map(opNameOf)).toEqual(['answer', 'answer']);
    expect(turns.every((c) => c.turn_id === c.id && !c.parent_id)).toBe(true);
  });

  it('lists a thread written with withThread, counting one turn per top-level call', async () => {
    const thread = `listed-${Date.now()}`;
    for (const q of ['What is 3 + 3?', 'What is 4 + 4?']) await withThread(thread, () => answer(q, { short: true }));
    await weft.forceFlush();
    const [listed] = await client.trace.threads.streamQuery({ filter: { thread_ids: [thread] } }).collect();
    const turns = (await client.trace.calls.streamQuery({ filter: { thread_ids: [thread] } }).collect()).filter((c) => c.turn_id);
    expect(listed).toMatchObject({ thread_id: thread, turn_count: 2, first_turn_id: turns[0]!.id, last_turn_id: turns[1]!.id });
  });

  it('records a failing op as an error call with its message', async () => {
    const fails = op(async function fails() {
      throw new Error('no answer today');
    });
    await expect(fails()).rejects.toThrow('no answer today');
    await weft.forceFlush();
    const [call] = await client.trace.calls.streamQuery({ filter: { op_names: [anyVersionOf('fails')] } }).collect();
    expect(call!.summary?.weave?.status).toBe('error');
    expect(call!.exception).toContain('no answer today');
  });
});
