import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { devClient, PROJECT } from './client-support.js';
import { otlpExport, ROUTED, type SpanSpec } from './otlp-bytes.js';
import type { Json } from './support.js';

// How the trace service reads a span (reference trace-service.md §3, and the OTel helpers it is compiled from).
const MAX_DISPLAY_NAME_LENGTH = 1024;
const MAX_OP_NAME_LENGTH = 128;

/** Exports spans routed to the client's project and reads their calls back, in the order given. */
async function ingest(spans: SpanSpec[]) {
  const { client } = await devClient();
  const { bytes, spanIds } = otlpExport(spans, ROUTED);
  const answer = await client.trace.otel.export(bytes, { headers: { project_id: PROJECT } });
  const calls = await client.trace.calls.streamQuery({ filter: { call_ids: spanIds } }).collect();
  const byId = new Map(calls.map((c) => [c.id, c]));
  return { answer, calls: spanIds.map((id) => byId.get(id)) };
}

/** POSTs an export the way a plain OTLP exporter does: protobuf, and only the headers given. */
async function rawExport(url: string, bytes: Uint8Array, headers: Record<string, string> = {}): Promise<Json> {
  const res = await fetch(`${url}/otel/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', ...headers }, body: bytes });
  expect(res.status).toBe(200);
  return res.json();
}

describe('weft dev: JSON-looking attribute strings', () => {
  it('parses a string that starts with { or [, and keeps one that starts with white space as text', async () => {
    const { calls } = await ingest([
      { name: 'parsed', attributes: { 'input.value': '{"q":1}', output: '[1,2]' } },
      { name: 'text', attributes: { 'input.value': ' {"q":1}', output: '\n[1,2]' } },
    ]);
    expect(calls.map((c) => [c?.inputs, c?.output])).toEqual([
      [{ 'input.value': { q: 1 } }, [1, 2]],
      [{ 'input.value': ' {"q":1}' }, '\n[1,2]'],
    ]);
  });
});

describe('weft dev: a thread id that is not a string', () => {
  it('refuses the span in partial_success, naming the key, and stores the others', async () => {
    const { answer, calls } = await ingest([
      { name: 'object-thread', attributes: { 'wandb.thread_id': '{"id":7}', output: 'x' } },
      { name: 'list-thread', attributes: { 'wandb.thread_id': '["a"]', output: 'x' } },
      { name: 'text-thread', attributes: { 'wandb.thread_id': 'thread-1', output: 'y' } },
    ]);
    expect(answer.partial_success?.rejected_spans).toBe(2);
    expect(answer.partial_success?.error_message).toMatch(/\("object-thread"\): wandb\.thread_id must be a string, got an object; .*\("list-thread"\): wandb\.thread_id must be a string, got a list$/);
    expect(calls.map((c) => c?.thread_id ?? null)).toEqual([null, null, 'thread-1']);
    expect(calls.map((c) => c === undefined)).toEqual([true, true, false]);
  });
});

describe('weft dev: long names', () => {
  it('keeps a display name of exactly the limit whole', async () => {
    const name = 'x'.repeat(MAX_DISPLAY_NAME_LENGTH);
    const { calls } = await ingest([{ name: 'op', attributes: { 'wandb.display_name': name, output: 'ok' } }]);
    expect(calls[0]?.display_name).toBe(name);
  });

  it('cuts a longer display name after the last whole word that fits and ends it in "..."', async () => {
    const name = Array(300).fill('word').join(' ');
    const { calls } = await ingest([{ name: 'op', attributes: { 'wandb.display_name': name, output: 'ok' } }]);
    expect(calls[0]?.display_name).toBe(`${Array(204).fill('word').join(' ')} ...`);
    expect(calls[0]!.display_name!.length).toBeLessThanOrEqual(MAX_DISPLAY_NAME_LENGTH);
  });

  it('cuts a long span name after the last whole word that fits and ends it in 4 hex of its SHA-256', async () => {
    const name = Array(40).fill('step').join(' ');
    const hash = createHash('sha256').update(name).digest('hex').slice(0, 4);
    const { calls } = await ingest([{ name, attributes: { output: 'ok' } }]);
    expect(calls[0]?.summary?.weave?.trace_name).toBe(`${Array(24).fill('step').join(' ')}:${hash}`);
    expect(calls[0]!.summary!.weave!.trace_name!.length).toBeLessThanOrEqual(MAX_OP_NAME_LENGTH);
  });
});

describe('weft dev: spans with no project', () => {
  it('refuses spans that name no project, in partial_success, saying what is missing, and stores nothing', async () => {
    const { dev, client } = await devClient();
    const { bytes } = otlpExport([{ name: 'lost', attributes: { output: 'x' } }, { name: 'lost-too' }]);
    const answer = await rawExport(dev.url, bytes);
    expect(answer.partial_success.rejected_spans).toBe(2);
    expect(answer.partial_success.error_message).toMatch(
      /^span [0-9a-f]{16} \("lost"\): no project: the resource lacks wandb\.entity and wandb\.project and the request has no project_id header; set both resource attributes or send the header project_id: <entity>\/<project>; span /,
    );
    for (const project_id of ['local/default', PROJECT]) {
      expect(await client.trace.calls.streamQuery({ project_id }).collect()).toEqual([]);
    }
  });

  it('names a project_id header that is not entity/project, and a resource that has only half the routing', async () => {
    const { dev } = await devClient();
    const { bytes } = otlpExport([{ name: 'half' }], { 'wandb.entity': 'team' });
    const answer = await rawExport(dev.url, bytes, { project_id: 'no-slash' });
    expect(answer.partial_success.error_message).toMatch(/the resource lacks wandb\.project and the request has a project_id header "no-slash" that is not entity\/project/);
  });

  it('files spans by the project_id header alone, as client.trace.otel.export sends it', async () => {
    const { client } = await devClient();
    const { bytes, spanIds } = otlpExport([{ name: 'by-header', attributes: { output: 'ok' } }]);
    expect(await client.trace.otel.export(bytes, { headers: { project_id: PROJECT } })).toEqual({ partial_success: null });
    expect((await client.trace.calls.streamQuery({ project_id: PROJECT }).collect()).map((c) => c.id)).toEqual(spanIds);
  });
});
