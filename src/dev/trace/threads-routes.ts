import type { DevContext } from '../context.js';
import { HttpError, sendJsonl } from '../http.js';
import type { Route } from '../router.js';
import { checkBody } from '../validate.js';
import { optObject, PAGING, type Paging, reqStr, strList } from './fields.js';
import { page, sortRecords } from './query-expr.js';
import { summarizeThreads, THREAD_SORT_FIELDS, type ThreadsFilter } from './thread-summary.js';

const optDatetime = { type: 'datetime', nullable: true } as const;

/** Threads: listed from the calls' thread and turn ids, so there is nothing to write. */
export function threadRoutes(ctx: DevContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/threads/stream_query',
      handler: async (c) => {
        const body = checkBody<Paging & { project_id: string; filter?: ThreadsFilter | null }>(await c.json(), {
          strict: true,
          fields: {
            project_id: reqStr,
            filter: optObject({ after_datetime: optDatetime, before_datetime: optDatetime, thread_ids: { ...strList, nullable: true } }),
            ...PAGING,
          },
        });
        // The service checks the field as it builds its query, a ValueError: a 400, not a validation 422.
        const unknown = body.sort_by?.find((s) => !(THREAD_SORT_FIELDS as readonly string[]).includes(s.field));
        if (unknown) throw new HttpError(400, `Unsupported sort field: ${unknown.field}. Supported fields: ${THREAD_SORT_FIELDS.join(', ')}`);
        const threads = summarizeThreads(ctx.store.projectCalls(body.project_id), body.filter ?? {});
        // The service lists the most recently active threads first unless told otherwise.
        const sorted = sortRecords(threads, body.sort_by?.length ? body.sort_by : [{ field: 'last_updated', direction: 'desc' }]);
        sendJsonl(c.res, page(sorted, body.limit, body.offset));
      },
    },
  ];
}
