import type { TrainingJobEvent } from 'weft';
import { type LoopbackServer, type RecordedRequest, sendJson, startLoopbackServer } from '../inference/loopback-server.js';

/** A job whose events the test reveals over time, served with the service's cursor paging. */
export interface FakeJob {
  server: LoopbackServer;
  /** Every events request, in order. */
  eventRequests(): RecordedRequest[];
}

export function event(id: string, type: TrainingJobEvent['type'], data: Record<string, unknown> = {}): TrainingJobEvent {
  return { id, type, data };
}

/**
 * Serves `GET /v1/preview/training-jobs/{id}/events`. `visible(poll)` gives the events that exist when the
 * n-th request arrives (0-based); pages follow `after` and `limit` (default 20). With `redeliver`, each page
 * starts again with the item named by `after`, as a server with an inclusive cursor would.
 */
export async function startFakeJob(
  visible: (request: number) => TrainingJobEvent[],
  options: { redeliver?: boolean; checkpoints?: { id: string; step: number; metrics: Record<string, number> }[] } = {},
): Promise<FakeJob> {
  let count = 0;
  const server = await startLoopbackServer((req, res) => {
    if (req.path.endsWith('/checkpoints')) {
      page(options.checkpoints ?? [], req, res, false);
      return;
    }
    page(visible(count++), req, res, options.redeliver ?? false);
  });
  return { server, eventRequests: () => server.requests.filter((r) => r.path.endsWith('/events')) };
}

function page<T extends { id: string }>(
  items: T[],
  req: RecordedRequest,
  res: Parameters<Parameters<typeof startLoopbackServer>[0]>[1],
  redeliver: boolean,
): void {
  const after = req.query.get('after');
  const limit = Number(req.query.get('limit') ?? 20);
  let start = 0;
  if (after !== null) {
    const index = items.findIndex((item) => item.id === after);
    start = index === -1 ? items.length : redeliver ? index : index + 1;
  }
  const data = items.slice(start, start + limit);
  sendJson(res, 200, {
    object: 'list',
    data,
    first_id: data[0]?.id ?? '',
    last_id: data.at(-1)?.id ?? '',
    has_more: start + limit < items.length,
  });
}
