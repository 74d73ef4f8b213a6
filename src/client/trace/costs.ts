import type { CallOptions } from '../core/types.js';
import { TraceResource } from './resource.js';
import type { ProjectScoped } from './types/common.js';
import type { CostCreateReq, CostCreateRes, CostPurgeReq, CostPurgeRes, CostQueryReq, CostQueryRes } from './types/costs.js';

/** Prices of LLMs, used to cost calls. `client.trace.costs` */
export class Costs extends TraceResource {
  /** Adds prices, keyed by LLM id. POST /cost/create */
  async create(req: ProjectScoped<CostCreateReq>, options?: CallOptions): Promise<CostCreateRes> {
    return this.json('POST', '/cost/create', { body: this.scoped(req), retry: 'once' }, options);
  }

  /** Deletes the prices a query names by id (the only purge the service takes). POST /cost/purge */
  async purge(req: ProjectScoped<CostPurgeReq>, options?: CallOptions): Promise<CostPurgeRes> {
    return this.json('POST', '/cost/purge', { body: this.scoped(req), retry: 'once' }, options);
  }

  /** Lists prices. POST /cost/query */
  async query(req: ProjectScoped<CostQueryReq> = {}, options?: CallOptions): Promise<CostQueryRes> {
    return this.json('POST', '/cost/query', { body: this.scoped(req), retry: 'idempotent' }, options);
  }
}
