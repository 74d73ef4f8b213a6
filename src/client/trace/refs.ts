import type { CallOptions } from '../core/types.js';
import { TraceResource } from './resource.js';
import type { RefsReadBatchReq, RefsReadBatchRes } from './types/refs.js';

/** Resolving `weave:///…` refs. `client.trace.refs` */
export class Refs extends TraceResource {
  /** Reads the values of several refs, in order. POST /refs/read_batch */
  async readBatch(req: RefsReadBatchReq, options?: CallOptions): Promise<RefsReadBatchRes> {
    return this.json('POST', '/refs/read_batch', { body: req, retry: 'idempotent' }, options);
  }
}
