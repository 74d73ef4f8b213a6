/** POST /refs/read_batch: resolves `weave:///…` refs to their values. No `project_id`: refs carry it. */
export interface RefsReadBatchReq {
  refs: string[];
}
/** The answer of POST /refs/read_batch. */
export interface RefsReadBatchRes {
  /** One value per ref, in order. */
  vals: unknown[];
}
