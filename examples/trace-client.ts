/**
 * weft trace-client example: trace one op, then read it back, attach feedback to it, and store a small
 * dataset as a versioned object and a table — the trace service's everyday endpoints through weft's `Client`.
 *
 * Runs against `weft dev` with no configuration (`npm run dev` in another terminal), or against a real
 * deployment through WEFT_BASE_URL, WEFT_API_KEY and WEFT_PROJECT.
 *
 *   node --import tsx examples/trace-client.ts
 */
import { trace } from '@opentelemetry/api';
import { Client, callName, op, register } from 'weft';

const weft = register({ serviceName: 'weft-trace-client-example' });
const client = new Client();

const classify = op(function classify(ticket: string) {
  return ticket.includes('refund') ? 'billing' : 'other';
});

try {
  // 1. One traced call; its span id is the call id in the trace service.
  let callId = '';
  trace.getTracer('example').startActiveSpan('triage', (span) => {
    classify('I want a refund for order 1234');
    callId = span.spanContext().spanId;
    span.end();
  });
  await weft.forceFlush();

  // 2. Read it back with its children.
  const read = await client.trace.calls.read({ id: callId });
  const [root] = await client.trace.calls.tree(read.call?.trace_id ?? '');
  // An OTel call's op_name is the ref of the op the service made for its span: callName() gives the span's name.
  console.log(`trace:    ${root && callName(root.call)} → ${root?.children.map((c) => `${callName(c.call)}(${JSON.stringify(c.call.inputs)}) = ${JSON.stringify(c.call.output)}`).join(', ')}`);

  // 3. Feedback on the call, addressed by its ref.
  const ref = `weave:///${weft.project}/call/${callId}`;
  await client.trace.feedback.create({ weave_ref: ref, feedback_type: 'wandb.note.1', payload: { note: 'correct routing' } });
  const feedback = await client.trace.feedback.query({ query: { $expr: { $eq: [{ $getField: 'weave_ref' }, { $literal: ref }] } } });
  console.log(`feedback: ${feedback.result.length} note(s) on the call`);

  // 4. A dataset: rows in a table, and a versioned object that points at it.
  const table = await client.trace.tables.create({
    table: { rows: [{ ticket: 'refund please', label: 'billing' }, { ticket: 'app crashes', label: 'other' }] },
  });
  const obj = await client.trace.objs.create({
    obj: { object_id: 'triage-examples', val: { _type: 'Dataset', rows: `weave:///${weft.project}/table/${table.digest}` } },
  });
  const rows = await client.trace.tables.query({ digest: table.digest });
  console.log(`dataset:  triage-examples:${obj.digest.slice(0, 8)} with ${rows.rows.length} rows`);
} finally {
  await client.close();
  await weft.shutdown();
}
