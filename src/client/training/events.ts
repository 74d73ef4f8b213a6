import type { HttpCore } from '../core/http.js';
import { forwardCallOptions } from '../core/call-options.js';
import type { CallOptions } from '../core/types.js';
import { paginate } from './paginate.js';
import { encodeSegment } from '../core/url.js';
import type { EventListParams, TrainingJobEvent } from './types/events.js';
import type { Paginated } from './types/pagination.js';

/** `jobs.events` of the training service: what a job reported, oldest first. */
export class JobEvents {
  constructor(private readonly core: HttpCore) {}

  /** Lists one page of a job's events (`GET /preview/training-jobs/{training_job_id}/events`). */
  async list(jobId: string, params: EventListParams = {}, options: CallOptions = {}): Promise<Paginated<TrainingJobEvent>> {
    return this.core.request<Paginated<TrainingJobEvent>>({
      method: 'GET',
      path: eventsPath(jobId),
      query: { after: params.after, limit: params.limit },
      ...forwardCallOptions(options),
    });
  }

  /**
   * Every event of a job so far, page after page; it ends at the last event the service has now (use
   * `jobs.watch()` to wait for more).
   */
  listAll(jobId: string, params: EventListParams = {}, options: CallOptions = {}): AsyncGenerator<TrainingJobEvent, void, undefined> {
    return paginate((after) => this.list(jobId, { limit: params.limit, after }, options), params.after);
  }
}

/** The events path of a job, encoded. */
export function eventsPath(jobId: string): string {
  return `/preview/training-jobs/${encodeSegment(jobId, 'jobId')}/events`;
}
