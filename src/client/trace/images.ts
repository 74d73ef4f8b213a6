import type { CallOptions } from '../core/types.js';
import { TraceResource } from './resource.js';
import type { ProjectScoped } from './types/common.js';
import type { ImageCreateReq, ImageCreateRes } from './types/images.js';

/** Image generation through the service. `client.trace.images` */
export class Images extends TraceResource {
  /** Generates images (traced as a call unless `track_llm_call` is false). POST /image/create */
  async create(req: ProjectScoped<ImageCreateReq>, options?: CallOptions): Promise<ImageCreateRes> {
    return this.json('POST', '/image/create', { body: this.scoped(req), retry: 'once' }, options);
  }
}
