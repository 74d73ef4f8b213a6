import { sendJson, sendJsonl } from '../http.js';
import { uuidv7 } from '../ids.js';
import type { Route } from '../router.js';
import { checkBody, queryString } from '../validate.js';
import { type AnnotationQueue, type AnnotationQueueData, DEV_USER } from './annotation-queues.js';
import { optStr, PAGING, type Paging, reqStr, strList } from './fields.js';
import { allowedOrder } from './allowed-order.js';
import { page, sortRecords } from './query-expr.js';

// The fields the service sorts queues by.
const QUEUE_SORT_FIELDS = ['id', 'name', 'created_at', 'updated_at'] as const;

type QueueChanges = Partial<Pick<AnnotationQueue, 'name' | 'description' | 'scorer_refs'>>;

/** Annotation queues themselves: create, query, read, update, delete (soft: a deleted queue reads as 404) and item counts. */
export function annotationQueueRoutes(data: AnnotationQueueData): Route[] {
  const { queues } = data;
  const save = (queue: AnnotationQueue) => queues.put(queue.project_id, queue.id, queue);
  return [
    {
      method: 'POST',
      path: '/annotation_queues',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; name: string; description?: string | null; scorer_refs: string[] }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, name: reqStr, description: optStr, scorer_refs: { ...strList, required: true } },
        });
        const now = new Date().toISOString();
        const queue: AnnotationQueue = {
          id: uuidv7(),
          project_id: body.project_id,
          name: body.name,
          description: body.description ?? '',
          scorer_refs: body.scorer_refs,
          created_at: now,
          created_by: DEV_USER,
          updated_at: now,
          deleted_at: null,
        };
        save(queue);
        sendJson(c.res, 200, { id: queue.id });
      },
    },
    {
      method: 'POST',
      path: '/annotation_queues/query',
      handler: async (c) => {
        const body = checkBody<Paging & { project_id: string; name?: string | null }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, name: optStr, ...PAGING },
        });
        const needle = body.name?.toLowerCase();
        const kept = queues.list(body.project_id).filter((q) => !q.deleted_at && (!needle || q.name.toLowerCase().includes(needle)));
        // The newest queue first unless told otherwise, as the service lists them; queues made in the same
        // millisecond too (they are read newest first, and the sort is stable).
        const order = allowedOrder(body.sort_by, QUEUE_SORT_FIELDS, [
          { field: 'created_at', direction: 'desc' },
        ]);
        sendJsonl(c.res, page(sortRecords([...kept].reverse(), order), body.limit, body.offset));
      },
    },
    {
      method: 'POST',
      path: '/annotation_queues/stats',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; queue_ids: string[] }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, queue_ids: { ...strList, required: true } },
        });
        // Queues that do not exist (or were deleted) have no stats, rather than failing the whole request.
        const known = body.queue_ids.filter((id) => queues.get(body.project_id, id)?.deleted_at === null);
        const stats = known.map((queueId) => {
          const items = data.queueItems(body.project_id, queueId);
          return { queue_id: queueId, total_items: items.length, completed_items: items.filter((i) => i.annotation_state === 'completed').length };
        });
        sendJson(c.res, 200, { stats });
      },
    },
    {
      method: 'GET',
      path: '/annotation_queues/{queue_id}',
      handler: (c) => {
        sendJson(c.res, 200, { queue: data.liveQueue(queryString(c.url, 'project_id'), c.params.queue_id!) });
      },
    },
    {
      method: 'PUT',
      path: '/annotation_queues/{queue_id}',
      handler: async (c) => {
        const body = checkBody<QueueChanges & { project_id: string }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, name: optStr, description: optStr, scorer_refs: { ...strList, nullable: true } },
        });
        const queue = { ...data.liveQueue(body.project_id, c.params.queue_id!) };
        if (body.name != null) queue.name = body.name;
        if (body.description != null) queue.description = body.description;
        if (body.scorer_refs != null) queue.scorer_refs = body.scorer_refs;
        queue.updated_at = new Date().toISOString();
        save(queue);
        sendJson(c.res, 200, { queue });
      },
    },
    {
      method: 'DELETE',
      path: '/annotation_queues/{queue_id}',
      handler: (c) => {
        const queue = { ...data.liveQueue(queryString(c.url, 'project_id'), c.params.queue_id!) };
        queue.deleted_at = new Date().toISOString();
        save(queue);
        sendJson(c.res, 200, { queue });
      },
    },
  ];
}
