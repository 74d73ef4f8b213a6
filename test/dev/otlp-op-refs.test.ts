import { describe, expect, it } from 'vitest';
import { devClient, PROJECT } from './client-support.js';
import { otlpExport, ROUTED } from './otlp-bytes.js';

// The trace service makes one op object per span name and stores an OTel call's op_name as that op's ref
// (reference trace-service.md §3.3, §1.7).
const OP_REF = /^weave:\/\/\/team\/proj\/op\/([^:]+):([\w-]+)$/;

async function ingest(client: Awaited<ReturnType<typeof devClient>>['client'], names: string[]) {
  const { bytes, spanIds } = otlpExport(
    names.map((name) => ({ name, attributes: { output: 'ok' } })),
    ROUTED,
  );
  expect(await client.trace.otel.export(bytes, { headers: { project_id: PROJECT } })).toEqual({ partial_success: null });
  return spanIds;
}

describe('weft dev: the op of an OTel call', () => {
  it('stores op_name as the ref of an op named after the span, lowercased with spaces and slashes as _', async () => {
    const { client } = await devClient();
    const [id] = await ingest(client, ['Chat meta-llama/Llama-3.1-8B']);
    const { call } = await client.trace.calls.read({ id: id! });
    expect(call?.op_name).toMatch(OP_REF);
    expect(OP_REF.exec(call!.op_name)?.[1]).toBe('chat_meta-llama_llama-3.1-8b');
    // The span's own name stays readable in the summary.
    expect(call?.summary?.weave?.trace_name).toBe('Chat meta-llama/Llama-3.1-8B');
  });

  it('makes an op object the ref resolves to, through /refs/read_batch and /obj/read', async () => {
    const { client } = await devClient();
    const [id] = await ingest(client, ['answer']);
    const { call } = await client.trace.calls.read({ id: id! });
    const [, name, digest] = OP_REF.exec(call!.op_name)!;
    const { vals } = await client.trace.refs.readBatch({ refs: [call!.op_name] });
    expect(vals).toEqual([{ _type: 'CustomWeaveType', weave_type: { type: 'Op' }, files: { 'obj.py': expect.any(String) } }]);
    const { obj } = await client.trace.objs.read({ object_id: name!, digest: digest! });
    expect(obj).toMatchObject({ object_id: 'answer', digest, kind: 'op', version_index: 0, is_latest: 1 });
    const source = await client.trace.files.content({ digest: (vals[0] as { files: { 'obj.py': string } }).files['obj.py'] });
    expect(Buffer.from(source).toString('utf8')).toContain('Code-capture unavailable for this op');
  });

  it('keeps one op version per span name however many spans carry it', async () => {
    const { client } = await devClient();
    const ids = await ingest(client, ['step', 'step', 'other']);
    await ingest(client, ['step']);
    const calls = await client.trace.calls.streamQuery({ filter: { call_ids: ids } }).collect();
    expect(new Set(calls.filter((c) => c.op_name.includes('/op/step:')).map((c) => c.op_name)).size).toBe(1);
    const { objs } = await client.trace.objs.query({ filter: { is_op: true } });
    expect(objs.map((o) => [o.object_id, o.version_index]).sort()).toEqual([
      ['other', 0],
      ['step', 0],
    ]);
  });

  it('filters op_names by the exact ref, and by `<ref name>:*` for any version of the op', async () => {
    const { client } = await devClient();
    const [answerId, otherId] = await ingest(client, ['answer', 'answer_more']);
    const { call } = await client.trace.calls.read({ id: answerId! });
    const ids = async (op_names: string[]) => (await client.trace.calls.streamQuery({ filter: { op_names } }).collect()).map((c) => c.id);
    expect(await ids([call!.op_name])).toEqual([answerId]);
    expect(await ids([`weave:///${PROJECT}/op/answer:*`])).toEqual([answerId]);
    expect(await ids([`weave:///${PROJECT}/op/answer_more:*`])).toEqual([otherId]);
    // The bare span name is not the op_name any more.
    expect(await ids(['answer'])).toEqual([]);
  });

  it('leaves the op_name of a call written through /call/start as it was sent', async () => {
    const { client } = await devClient();
    const { id } = await client.trace.calls.start({ start: { op_name: 'answer', started_at: '2026-01-01T00:00:00Z', attributes: {}, inputs: {} } });
    const { call } = await client.trace.calls.read({ id });
    expect(call?.op_name).toBe('answer');
    expect((await client.trace.calls.streamQuery({ filter: { op_names: ['answer'] } }).collect()).map((c) => c.id)).toEqual([id]);
  });
});
