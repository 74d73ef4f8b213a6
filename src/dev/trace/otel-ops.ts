import type { DevContext } from '../context.js';
import { contentDigest } from '../ids.js';
import { writeFile, writeObject } from './object-writes.js';
import { objectRef } from './v2-scope.js';

// The source the service stores for every op it makes from a span: OTel carries no code.
const PLACEHOLDER_SOURCE = 'def func(*args, **kwargs):\n    ... # Code-capture unavailable for this op\n';
const PLACEHOLDER_FILE = contentDigest(PLACEHOLDER_SOURCE);
// How the SDKs store an op: a custom weave type whose source is a file.
const PLACEHOLDER_OP = { _type: 'CustomWeaveType', weave_type: { type: 'Op' }, files: { 'obj.py': PLACEHOLDER_FILE } };

/** The op's object id for a span name, as the service makes it (`make_safe_name`): `Chat gpt/4o` → `chat_gpt_4o`. */
function safeOpName(name: string): string {
  return name.replaceAll(' ', '_').replaceAll('/', '_').replaceAll('<', '').replaceAll('>', '').toLowerCase();
}

/**
 * The op of an OTel call (reference trace-service.md §3.3): the service keeps one op object per span name,
 * with a placeholder source, and stores the call's `op_name` as that op's ref,
 * `weave:///<entity>/<project>/op/<safe_name>:<digest>`. This makes the op when it is not stored yet and
 * returns the ref. Every such op has the same value, so a name already seen writes nothing.
 */
export function otelOpRef(ctx: DevContext, projectId: string, opName: string): string {
  if (!ctx.store.file(projectId, PLACEHOLDER_FILE)) writeFile(ctx, projectId, 'obj.py', Buffer.from(PLACEHOLDER_SOURCE, 'utf8'));
  const objectId = safeOpName(opName);
  const { digest } = writeObject(ctx, projectId, objectId, PLACEHOLDER_OP);
  return objectRef(projectId, 'op', encodeURIComponent(objectId), digest);
}
