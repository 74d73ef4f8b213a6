import type { DevContext } from '../context.js';
import { HttpError } from '../http.js';
import { canonicalJson, contentDigest } from '../ids.js';
import { ObjectLabels } from './object-labels.js';
import type { ObjSchema } from './types.js';

// An op is stored as a custom weave type whose weave_type is "Op" (how the SDKs save op source).
function isOp(val: unknown): boolean {
  const v = val as { _type?: unknown; weave_type?: { type?: unknown } } | null;
  return v?._type === 'CustomWeaveType' && v.weave_type?.type === 'Op';
}

/** The `_class_name` of an object's value, if it has one. */
function className(val: unknown): string | null {
  const name = (val as { _class_name?: unknown } | null)?._class_name;
  return typeof name === 'string' ? name : null;
}

/**
 * Stores a version of an object, content-addressed: the same value gets the same digest and no new
 * version. Returns the digest and the version's index. Both `/obj/create` and the v2 collections write here.
 */
export function writeObject(
  ctx: DevContext,
  projectId: string,
  objectId: string,
  val: unknown,
  baseClass: string | null = null,
): { digest: string; version_index: number } {
  const json = canonicalJson(val);
  const digest = contentDigest(json);
  const stored = () => ctx.store.objectVersions(projectId, objectId).find((v) => v.digest === digest);
  const existing = stored();
  // The same value again is no new version: nothing to log (OTel ingestion re-resolves its op on every span).
  if (existing) return { digest, version_index: existing.version_index };
  const base = baseClass ?? className(val);
  ctx.write({
    kind: 'obj',
    obj: {
      project_id: projectId,
      object_id: objectId,
      created_at: new Date().toISOString(),
      deleted_at: null,
      digest,
      kind: isOp(val) ? 'op' : 'object',
      base_object_class: base,
      leaf_object_class: className(val) ?? base,
      val,
      wb_user_id: null,
      size_bytes: Buffer.byteLength(json),
    },
  });
  return { digest, version_index: stored()!.version_index };
}

/** The digest of a table row: the digest of its canonical JSON. */
export function rowDigest(val: unknown): string {
  return contentDigest(canonicalJson(val));
}

/** Stores a table; rows are content-addressed and the table's digest is the digest of its row digests. */
export function writeTable(ctx: DevContext, projectId: string, rows: unknown[]): { digest: string; row_digests: string[] } {
  const stored = rows.map((val) => ({ digest: rowDigest(val), val }));
  const digest = contentDigest(stored.map((r) => r.digest).join(','));
  ctx.write({ kind: 'table', table: { project_id: projectId, digest, rows: stored } });
  return { digest, row_digests: stored.map((r) => r.digest) };
}

/** Stores a file, addressed by the SHA-256 of its bytes, and returns its digest. */
export function writeFile(ctx: DevContext, projectId: string, name: string, content: Buffer): string {
  const digest = contentDigest(content);
  ctx.write({ kind: 'file', project_id: projectId, digest, name, content_base64: content.toString('base64') });
  return digest;
}

/**
 * Deletes the versions among `versions` (all of one object) whose digest is in `digests` (every one when
 * null), with their aliases and tags, and returns how many went; a 404 naming `noun` when none matches.
 * `/obj/delete` and the v2 collections' deletes both come here.
 */
export function deleteObjectVersions(ctx: DevContext, versions: ObjSchema[], digests: string[] | null, noun: string): number {
  const doomed = versions.filter((v) => digests === null || digests.includes(v.digest));
  const first = doomed[0];
  if (!first) throw new HttpError(404, `${noun} has no such versions.`);
  const gone = doomed.map((v) => v.digest);
  ctx.write({ kind: 'obj_delete', project_id: first.project_id, object_id: first.object_id, digests: gone });
  new ObjectLabels(ctx).dropVersions(first.project_id, first.object_id, gone);
  return doomed.length;
}
