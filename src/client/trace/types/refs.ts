/**
 * POST /refs/read_batch: resolves `weave:///…` refs of objects and ops to their values, by exact digest (not
 * `latest`, nor a table's or a call's ref: a 400), following a path after the digest. No `project_id`: refs carry it.
 */
export interface RefsReadBatchReq {
  refs: string[];
}
/** The answer of POST /refs/read_batch. */
export interface RefsReadBatchRes {
  /** One value per ref, in order. */
  vals: unknown[];
}
