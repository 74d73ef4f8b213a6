import type { Client } from 'weft';

/** What {@link writeCall} takes: the call's identity, place in its trace, timing and usage. */
export interface CallFields {
  id: string;
  trace_id: string;
  parent_id?: string;
  started_at?: string;
  ended_at?: string;
  exception?: string;
  usage?: Record<string, { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number; requests?: number }>;
}

/** Writes one whole call (start and end) through the Client, with `summary.usage` when given. */
export async function writeCall(client: Client, fields: CallFields): Promise<void> {
  const { id, trace_id, parent_id, started_at = '2026-01-01T00:00:00.000Z', ended_at = '2026-01-01T00:00:01.000Z', exception, usage } = fields;
  await client.trace.calls.upsertBatch({
    batch: [
      { mode: 'start', req: { start: { id, trace_id, parent_id, op_name: 'predict', started_at, attributes: {}, inputs: {} } } },
      { mode: 'end', req: { end: { id, ended_at, summary: usage ? { usage } : {}, exception } } },
    ],
  });
}
