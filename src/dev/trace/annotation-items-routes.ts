import type { DevContext } from '../context.js';
import { HttpError, sendJson } from '../http.js';
import { uuidv7 } from '../ids.js';
import type { Route } from '../router.js';
import { checkBody, checkOneOf } from '../validate.js';
import { ANNOTATION_STATES, type AnnotationQueueData, type AnnotationQueueItem, DEV_USER } from './annotation-queues.js';
import { optBool, optObject, optStr, PAGING, type Paging, reqStr, strList } from './fields.js';
import { allowedOrder } from './allowed-order.js';
import { page, sortRecords } from './query-expr.js';

// The fields the service sorts queue items by.
const ITEM_SORT_FIELDS = ['call_started_at', 'call_op_name', 'created_at', 'updated_at'] as const;

interface ItemsFilter {
  id?: string | null;
  call_id?: string | null;
  call_op_name?: string | null;
  call_trace_id?: string | null;
  added_by?: string | null;
  annotation_states?: string[] | null;
}

const FILTER_KEYS = ['id', 'call_id', 'call_op_name', 'call_trace_id', 'added_by'] as const;

function matches(item: AnnotationQueueItem, filter: ItemsFilter | null | undefined): boolean {
  if (!filter) return true;
  if (FILTER_KEYS.some((k) => filter[k] != null && item[k] !== filter[k])) return false;
  return !filter.annotation_states || filter.annotation_states.includes(item.annotation_state);
}

/** The calls in annotation queues: add calls (a call already queued counts as a duplicate), list them, set their review state. */
export function annotationItemRoutes(ctx: DevContext, data: AnnotationQueueData): Route[] {
  const { items } = data;
  return [
    {
      method: 'POST',
      path: '/annotation_queues/{queue_id}/items',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; call_ids: string[]; display_fields: string[] }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, call_ids: { ...strList, required: true }, display_fields: { ...strList, required: true } },
        });
        // The service reads no queue before adding (annotation_queue_add_calls checks the queue's items for
        // duplicates, reads the calls and inserts): a queue id that names no queue, or a deleted one, takes
        // the calls all the same.
        const queueId = c.params.queue_id!;
        // As the service counts: the ids already queued are the duplicates, and an id that names no call is
        // skipped, counted as neither.
        const queued = new Set(data.queueItems(body.project_id, queueId).map((i) => i.call_id));
        const duplicates = new Set(body.call_ids.filter((id) => queued.has(id))).size;
        let added = 0;
        for (const callId of body.call_ids) {
          const call = ctx.store.call(body.project_id, callId);
          if (queued.has(callId) || !call) continue;
          queued.add(callId);
          const now = new Date().toISOString();
          const item: AnnotationQueueItem = {
            id: uuidv7(),
            project_id: body.project_id,
            queue_id: queueId,
            call_id: call.id,
            call_started_at: call.started_at,
            call_ended_at: call.ended_at ?? null,
            call_op_name: call.op_name,
            call_trace_id: call.trace_id,
            display_fields: body.display_fields,
            added_by: DEV_USER,
            annotation_state: 'unstarted',
            annotator_user_id: null,
            created_at: now,
            created_by: DEV_USER,
            updated_at: now,
            deleted_at: null,
          };
          items.put(body.project_id, item.id, item);
          added++;
        }
        sendJson(c.res, 200, { added_count: added, duplicates });
      },
    },
    {
      method: 'POST',
      path: '/annotation_queues/{queue_id}/items/query',
      handler: async (c) => {
        const body = checkBody<Paging & { project_id: string; filter?: ItemsFilter | null; include_position?: boolean | null }>(await c.json(), {
          strict: true,
          fields: {
            project_id: reqStr,
            filter: optObject({ ...Object.fromEntries(FILTER_KEYS.map((k) => [k, optStr])), annotation_states: { ...strList, nullable: true } }),
            include_position: optBool,
            ...PAGING,
          },
        });
        const queue = data.liveQueue(body.project_id, c.params.queue_id!);
        // The position is the item's place in the whole queue (1-based), whatever the filter keeps.
        const positioned = data
          .queueItems(body.project_id, queue.id)
          .map((item, i) => ({ ...item, position_in_queue: body.include_position ? i + 1 : null }));
        const kept = positioned.filter((item) => matches(item, body.filter));
        // The oldest item first unless told otherwise, as the service lists them.
        const order = allowedOrder(body.sort_by, ITEM_SORT_FIELDS, [
          { field: 'created_at', direction: 'asc' },
        ]);
        sendJson(c.res, 200, { items: page(sortRecords(kept, order), body.limit, body.offset) });
      },
    },
    {
      method: 'POST',
      path: '/annotation_queues/{queue_id}/items/{item_id}/progress',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; annotation_state: string }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, annotation_state: reqStr },
        });
        const state = checkOneOf(body.annotation_state, ANNOTATION_STATES, ['body', 'annotation_state']);
        const queue = data.liveQueue(body.project_id, c.params.queue_id!);
        const found = items.get(body.project_id, c.params.item_id!);
        if (!found || found.queue_id !== queue.id || found.deleted_at) {
          throw new HttpError(404, `Item ${c.params.item_id} not found in annotation queue ${queue.id}.`);
        }
        const item: AnnotationQueueItem = { ...found, annotation_state: state, annotator_user_id: DEV_USER, updated_at: new Date().toISOString() };
        items.put(body.project_id, item.id, item);
        sendJson(c.res, 200, { item });
      },
    },
  ];
}
