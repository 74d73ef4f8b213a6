import { describe, expect, it } from 'vitest';
import { ServerSentEventsError, parseServerSentEvents } from '../../../src/client/core/sse.js';

async function* pieces(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function events(source: AsyncIterable<Uint8Array>, maxBufferSize?: number) {
  const out = [];
  for await (const event of parseServerSentEvents(source, maxBufferSize === undefined ? {} : { maxBufferSize })) out.push(event);
  return out;
}

describe('parseServerSentEvents', () => {
  it('reads the same events whatever byte the stream is split at, multi-byte characters included', async () => {
    const text = 'event: delta\nid: 7\ndata: {"t":"héllo ✓"}\n\n: keep-alive\n\ndata: line one\ndata: line two\n\n';
    const expected = [
      { event: 'delta', id: '7', data: '{"t":"héllo ✓"}' },
      { data: 'line one\nline two' },
    ];
    for (const size of [1, 2, 3, 5, 64]) {
      expect(await events(pieces(text, size))).toEqual(expected);
    }
  });

  it('reads lines ended by a lone CR, the last event included', async () => {
    for (const size of [1, 3, 64]) {
      expect(await events(pieces('data: a\r\rdata: [DONE]\r\r', size))).toEqual([{ data: 'a' }, { data: '[DONE]' }]);
    }
  });

  it('drops an event that was still unfinished when the bytes ended', async () => {
    expect(await events(pieces('data: whole\n\ndata: cut sho', 4))).toEqual([{ data: 'whole' }]);
  });

  it('fails rather than buffer an endless line', async () => {
    await expect(events(pieces(`data: ${'x'.repeat(5000)}`, 100), 1000)).rejects.toBeInstanceOf(ServerSentEventsError);
  });

  it('stops reading the source when the consumer stops', async () => {
    let pulled = 0;
    async function* source(): AsyncGenerator<Uint8Array> {
      for (;;) {
        pulled += 1;
        yield Buffer.from('data: x\n\n');
      }
    }
    for await (const _event of parseServerSentEvents(source())) break;
    expect(pulled).toBe(1);
  });
});
