import type { CallOptions } from '../core/types.js';
import { encodePath } from '../core/url.js';
import { TraceResource } from './resource.js';
import type { InferenceInfoRes } from './types/service.js';

/**
 * The trace service's information about inference models and hardware. Each path names a provider or
 * vendor in a fixed segment, which the caller passes. `client.trace.inferenceInfo`
 */
export class InferenceInfo extends TraceResource {
  /** Model analysis listing of one provider. GET /inference/analysis/{analysis_provider}/models */
  async analysisModels(analysisProvider: string, options?: CallOptions): Promise<InferenceInfoRes> {
    return this.json('GET', encodePath`/inference/analysis/${analysisProvider}/models`, {}, options);
  }

  /** Hardware of one vendor. GET /inference/{hardware_vendor}/v2/hardware */
  async hardware(hardwareVendor: string, options?: CallOptions): Promise<InferenceInfoRes> {
    return this.json('GET', encodePath`/inference/${hardwareVendor}/v2/hardware`, {}, options);
  }

  /** Model listing of one router provider. GET /inference/router/{router_provider}/models */
  async routerModels(routerProvider: string, options?: CallOptions): Promise<InferenceInfoRes> {
    return this.json('GET', encodePath`/inference/router/${routerProvider}/models`, {}, options);
  }
}
