import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, json, startHarness } from './harness.js';

/**
 * vLLM sends a reasoning model's thinking as `reasoning` (older versions, and DeepSeek's API, as
 * `reasoning_content`): either one is recorded as the output message's reasoning part.
 */

const REASONED = [{ role: 'assistant', parts: [{ type: 'reasoning', content: 'Think, then answer.' }, { type: 'text', content: '42' }], finish_reason: 'stop' }];

/** A loopback server answering like vLLM: `reasoning` on the message, or on the deltas of a stream. */
function startVllm(): Promise<Server> {
  const base = { id: 'chatcmpl-vllm', created: 1_700_000_000, model: 'Qwen/Qwen3-8B' };
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { stream?: boolean };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: '42', reasoning_content: '', reasoning: 'Think, then answer.' }, finish_reason: 'stop' }],
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // The first delta names the old key empty, the second both keys alike, as vLLM versions between the two send:
      // each piece is recorded once.
      const deltas = [
        { role: 'assistant', content: '' },
        { reasoning_content: '', reasoning: 'Think, ' },
        { reasoning: 'then answer.', reasoning_content: 'then answer.' },
        { content: '42' },
      ];
      for (const [i, delta] of deltas.entries()) {
        const finish = i === deltas.length - 1 ? 'stop' : null;
        res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      }
      res.end('data: [DONE]\n\n');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let h: Harness;
let vllm: Server;
let baseURL: string;
beforeAll(async () => {
  h = await startHarness();
  vllm = await startVllm();
  baseURL = `http://127.0.0.1:${(vllm.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise((resolve) => vllm.close(resolve));
  await h.close();
});

const REQUEST = { model: 'Qwen/Qwen3-8B', messages: [{ role: 'user' as const, content: 'The answer?' }] };

describe('reasoning sent as `reasoning`', () => {
  it('is recorded from a completion', async () => {
    await h.client({ baseURL }).chat.completions.create(REQUEST);
    const [span] = await h.spans(1);
    expect(json(span?.attributes['gen_ai.output.messages'])).toEqual(REASONED);
  });

  it('is recorded from a stream', async () => {
    const stream = await h.client({ baseURL }).chat.completions.create({ ...REQUEST, stream: true });
    for await (const _chunk of stream) {
      // read to the end
    }
    const [span] = await h.spans(1);
    expect(json(span?.attributes['gen_ai.output.messages'])).toEqual(REASONED);
  });
});
