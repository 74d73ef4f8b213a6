import type { HttpCore } from '../../core/http.js';
import { forwardCallOptions } from '../../core/call-options.js';
import type { CallOptions } from '../../core/types.js';
import type { ModelList } from './types.js';

/** `models` of the inference service. */
export class Models {
  constructor(
    private readonly core: HttpCore,
    private readonly headers: Record<string, string>,
  ) {}

  /**
   * Lists the models the service can serve now. The list may be empty; do not hard-code ids from it.
   *
   * @example
   * const { data } = await client.inference.models.list();
   * const ids = data.map((model) => model.id);
   */
  list(options: CallOptions = {}): Promise<ModelList> {
    return this.core.request<ModelList>({
      method: 'GET',
      path: '/models',
      ...forwardCallOptions({ ...options, headers: { ...this.headers, ...options.headers } }),
    });
  }
}
