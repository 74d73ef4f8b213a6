import type { CallSchema } from './types/calls.js';

// `weave:///<entity>/<project>/op/<name>:<digest>` (reference trace-service.md §1.7).
const OP_REF = /^weave:\/\/\/[^/]+\/[^/]+\/op\/([^:/]+):[^/]+$/;

/**
 * The name to show for a call: its display name, else its op's name. A call made from an OpenTelemetry span has
 * as its `op_name` the ref of an op the service made for the span's name (`weave:///team/app/op/chat_gpt-4o:…`,
 * reference §3.3), so the name is taken from the call's `summary.weave.trace_name` (the span's name) or, failing
 * that, out of the ref; a call written through `calls.start()` keeps the `op_name` it was given.
 *
 * @example
 * for await (const call of client.trace.calls.streamQuery({ limit: 10 })) console.log(callName(call));
 */
export function callName(call: Pick<CallSchema, 'op_name' | 'display_name' | 'summary'>): string {
  if (call.display_name) return call.display_name;
  const traceName = call.summary?.weave?.trace_name;
  if (traceName) return traceName;
  const ref = OP_REF.exec(call.op_name);
  return ref ? decodeURIComponent(ref[1]!) : call.op_name;
}
