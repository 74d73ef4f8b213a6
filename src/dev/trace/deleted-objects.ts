import type { ServerResponse } from 'node:http';
import { sendJson } from '../http.js';
import type { ObjSchema } from './types.js';

/**
 * Answers a read of a soft-deleted object version as the service does (errors.py `ObjectDeletedError`,
 * formatted by `_format_object_deleted_error`): a 404 whose body carries, beside the `reason`, when the
 * version was deleted, so that a client can tell "deleted" from "never existed". Returns false, answering
 * nothing, when the version is live.
 */
export function answeredDeleted(res: ServerResponse, version: ObjSchema): boolean {
  if (version.deleted_at == null) return false;
  sendJson(res, 404, {
    reason: `${version.object_id}:v${version.version_index} was deleted at ${version.deleted_at}`,
    deleted_at: version.deleted_at,
  });
  return true;
}
