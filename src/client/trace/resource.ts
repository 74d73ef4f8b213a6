import type { ProjectRef } from '../../config/index.js';
import type { HttpCore } from '../core/http.js';
import { forwardCallOptions } from '../core/call-options.js';
import type { CallOptions, HttpMethod } from '../core/types.js';
import type { ResponseStream } from '../core/response-stream.js';
import { type QueryParams, encodePath } from '../core/url.js';

/** What every trace resource needs: the trace service's core and the client's project. */
export interface TraceScope {
  readonly core: HttpCore;
  readonly project: ProjectRef;
}

/** Whether a POST may be sent twice; the per-endpoint decision, written where each endpoint is defined. */
export type Retry = 'idempotent' | 'once';

/**
 * Base of the trace resources: puts the project where each kind of endpoint expects it (a body field for
 * POST/PUT, a query parameter for GET/DELETE, path segments for `/v2/...`) and forwards call options.
 *
 * Subclass methods that return a promise are `async`, so that a bad argument (an empty id in a path) is a
 * rejection the caller's `.catch` or `await` sees, like every other failure of the call, never a throw.
 */
export abstract class TraceResource {
  constructor(protected readonly scope: TraceScope) {}

  /** `entity/project`, the trace service's `project_id`. */
  protected get projectId(): string {
    return this.scope.project.id;
  }

  /**
   * Adds `project_id` unless the caller set one. `project_id: undefined` (or null) counts as not set: a spread
   * would let it replace the default, and JSON would then send no project at all.
   */
  protected scoped<T extends object>(req: T): T & { project_id: string } {
    const own = (req as { project_id?: string | null }).project_id;
    return { ...req, project_id: own ?? this.projectId } as T & { project_id: string };
  }

  /** `/v2/{entity}/{project}` followed by `suffix` (already encoded). */
  protected v2(suffix: string): string {
    const { entity, project } = this.scope.project;
    return encodePath`/v2/${entity}/${project}` + suffix;
  }

  protected json<T>(
    method: HttpMethod,
    path: string,
    init: { body?: unknown; query?: QueryParams; retry?: Retry },
    options: CallOptions = {},
  ): Promise<T> {
    const { body, query, retry } = init;
    return this.scope.core.request<T>({ method, path, body, query, ...forwardCallOptions(options, idempotent(retry)) });
  }

  protected jsonl<T>(
    method: HttpMethod,
    path: string,
    init: { body?: unknown; query?: QueryParams },
    options: CallOptions = {},
  ): ResponseStream<T> {
    // Every JSONL endpoint is a query, so it is always safe to send again.
    return this.scope.core.jsonl<T>({ method, path, body: init.body, query: init.query, ...forwardCallOptions(options, true) });
  }
}

/** The endpoint's retry decision as the core's `idempotent`; none leaves it to the method. */
function idempotent(retry: Retry | undefined): boolean | undefined {
  return retry === undefined ? undefined : retry === 'idempotent';
}
