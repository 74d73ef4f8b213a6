/** POST /refs/read_batch: resolves `weave:///…` refs to their values. No `project_id`: refs carry it. */
export interface RefsReadBatchReq {
  refs: string[];
}
export interface RefsReadBatchRes {
  /** One value per ref, in order. */
  vals: unknown[];
}
