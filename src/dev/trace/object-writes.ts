import type { DevContext } from '../context.js';
import { HttpError } from '../http.js';
import { canonicalJson, contentDigest } from '../ids.js';
import { ObjectLabels } from './object-labels.js';
import { namesVersion } from './store.js';
import type { ObjSchema, StoredTable } from './types.js';

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

// The longest object id the service takes (validation.py `object_id_validator`).
const MAX_OBJECT_ID_LENGTH = 128;

/**
 * Stores a version of an object, content-addressed: the same value gets the same digest and no new
 * version. Returns the digest and the version's index. Both `/obj/create` and the v2 collections write here.
 * An object id longer than the service takes is its validation error, a 400.
 */
export function writeObject(
  ctx: DevContext,
  projectId: string,
  objectId: string,
  val: unknown,
  baseClass: string | null = null,
): { digest: string; version_index: number } {
  if ([...objectId].length > MAX_OBJECT_ID_LENGTH) {
    throw new HttpError(400, `String too long: ${objectId}. Max length is ${MAX_OBJECT_ID_LENGTH}`);
  }
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
  return writeTableRows(
    ctx,
    projectId,
    rows.map((val) => ({ digest: rowDigest(val), val })),
  );
}

/** Stores a table of rows already digested, some perhaps by digest alone (see {@link StoredTable}). */
export function writeTableRows(ctx: DevContext, projectId: string, rows: StoredTable['rows']): { digest: string; row_digests: string[] } {
  const digest = contentDigest(rows.map((r) => r.digest).join(','));
  ctx.write({ kind: 'table', table: { project_id: projectId, digest, rows } });
  return { digest, row_digests: rows.map((r) => r.digest) };
}

/** Stores a file, addressed by the SHA-256 of its bytes, and returns its digest. */
export function writeFile(ctx: DevContext, projectId: string, name: string, content: Buffer): string {
  const digest = contentDigest(content);
  ctx.write({ kind: 'file', project_id: projectId, digest, name, content_base64: content.toString('base64') });
  return digest;
}

/**
 * Deletes the versions among `versions` (all of one object) that `digests` name (a digest, `latest` or
 * `v<N>`; every version when null or empty, as the service's `if req.digests:` reads it), with their aliases
 * and tags, and returns how many went. As the service does, it deletes nothing and answers a 404 naming `noun`
 * when nothing matches, or when the names given do not come to as many versions as there are names.
 * `/obj/delete` and the v2 collections' deletes both come here.
 */
export function deleteObjectVersions(ctx: DevContext, versions: ObjSchema[], digests: string[] | null, noun: string): number {
  const all = digests === null || digests.length === 0;
  const doomed = versions.filter((v) => all || digests.some((name) => namesVersion(name, v)));
  const first = doomed[0];
  if (!first) throw new HttpError(404, `${noun} has no such versions.`);
  if (!all && new Set(digests).size !== doomed.length) {
    throw new HttpError(404, `Delete request contains ${new Set(digests).size} digests, but found ${doomed.length} objects to delete.`);
  }
  const gone = doomed.map((v) => v.digest);
  // Soft: the versions stay, stamped with when they went (see TraceStore.deleteObject).
  ctx.write({ kind: 'obj_delete', project_id: first.project_id, object_id: first.object_id, digests: gone, deleted_at: new Date().toISOString() });
  new ObjectLabels(ctx).dropVersions(first.project_id, first.object_id, gone);
  return doomed.length;
}
