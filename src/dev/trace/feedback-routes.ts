import type { DevContext } from '../context.js';
import { HttpError, sendJson } from '../http.js';
import { uuidv7 } from '../ids.js';
import type { Route } from '../router.js';
import { checkAt, checkBody, type FieldSpec, type ObjectSpec } from '../validate.js';
import { DEV_USER } from './annotation-queues.js';
import { checkFeedbackCreate } from './feedback-checks.js';
import { purgeIds } from './purge-ids.js';
import { parseVersionRef } from './ref-values.js';
import { optStr, PAGING, type Paging, reqStr, strList } from './fields.js';
import { matchesQuery, page, pickFields, sortRecords } from './query-expr.js';
import { bucketize, STATS_WINDOW_FIELDS, statsWindow } from './time-buckets.js';
import type { Feedback } from './types.js';

const CREATE_FIELDS: Record<string, FieldSpec> = {
  id: optStr,
  project_id: reqStr,
  weave_ref: reqStr,
  creator: optStr,
  feedback_type: reqStr,
  payload: { type: 'object', required: true },
  annotation_ref: optStr,
  runnable_ref: optStr,
  call_ref: optStr,
  trigger_ref: optStr,
  wb_user_id: optStr,
};
const CREATE_SPEC: ObjectSpec = { strict: true, fields: CREATE_FIELDS };

type FeedbackCreateReq = Partial<Feedback> & { project_id: string; weave_ref: string; feedback_type: string; payload: Record<string, unknown> };

/** The stored feedback for a create request (ids are UUIDv7 unless given). */
function newFeedback(req: FeedbackCreateReq): Feedback {
  return {
    id: req.id || uuidv7(),
    project_id: req.project_id,
    weave_ref: req.weave_ref,
    creator: req.creator ?? null,
    feedback_type: req.feedback_type,
    payload: req.payload,
    annotation_ref: req.annotation_ref ?? null,
    runnable_ref: req.runnable_ref ?? null,
    call_ref: req.call_ref ?? null,
    trigger_ref: req.trigger_ref ?? null,
    // The service fills in the authenticated user; the dev service has one.
    wb_user_id: DEV_USER,
    created_at: new Date().toISOString(),
  };
}

/** `FeedbackCreateRes`. */
function created(feedback: Feedback) {
  return { id: feedback.id, created_at: feedback.created_at, wb_user_id: feedback.wb_user_id, payload: feedback.payload };
}

/**
 * Feedback: create (one or a batch), query with fields, query, sort and paging, replace, purge by id, and
 * counts in time buckets. `/feedback/payload_schema` stays unserved: no source shows what it takes or answers.
 */
export function feedbackRoutes(ctx: DevContext): Route[] {
  const write = (feedback: Feedback) => {
    ctx.write({ kind: 'feedback', feedback });
    return created(feedback);
  };
  // An annotation's spec is read by its ref's exact digest, as the service reads refs.
  const hasObject = (ref: string): boolean => {
    const p = parseVersionRef(ref);
    return p?.kind === 'object' && p.extra.length === 0 && ctx.store.objectVersions(p.projectId, p.objectId).some((v) => v.digest === p.digest);
  };
  const checked = (req: FeedbackCreateReq): FeedbackCreateReq => {
    checkFeedbackCreate(req, hasObject);
    return req;
  };
  return [
    {
      method: 'POST',
      path: '/feedback/create',
      handler: async (c) => {
        sendJson(c.res, 200, write(newFeedback(checked(checkBody<FeedbackCreateReq>(await c.json(), CREATE_SPEC)))));
      },
    },
    {
      method: 'POST',
      path: '/feedback/batch/create',
      handler: async (c) => {
        const body = checkBody<{ batch: unknown[] }>(await c.json(), { strict: true, fields: { batch: { type: 'array', required: true } } });
        // Every item is checked before any is written, so a bad item does not leave half a batch.
        const items = body.batch.map((item, i) => checkAt<FeedbackCreateReq>(item, CREATE_SPEC, ['body', 'batch', i]));
        items.forEach(checked);
        sendJson(c.res, 200, { res: items.map((item) => write(newFeedback(item))) });
      },
    },
    {
      method: 'POST',
      path: '/feedback/replace',
      handler: async (c) => {
        const { feedback_id, ...req } = checkBody<FeedbackCreateReq & { feedback_id: string }>(await c.json(), {
          strict: true,
          fields: { ...CREATE_FIELDS, feedback_id: reqStr },
        });
        checked(req);
        if (!ctx.store.projectFeedback(req.project_id).some((f) => f.id === feedback_id)) {
          throw new HttpError(404, `Feedback ${feedback_id} not found in project ${req.project_id}.`);
        }
        ctx.write({ kind: 'feedback_delete', project_id: req.project_id, ids: [feedback_id] });
        sendJson(c.res, 200, write(newFeedback(req)));
      },
    },
    {
      method: 'POST',
      path: '/feedback/query',
      handler: async (c) => {
        const body = checkBody<Paging & { project_id: string; fields?: string[] | null; query?: unknown }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, fields: { ...strList, nullable: true }, query: { type: 'object', nullable: true }, ...PAGING },
        });
        const kept = ctx.store.projectFeedback(body.project_id).filter((f) => matchesQuery(body.query ?? undefined, f));
        const sorted = sortRecords(kept, body.sort_by ?? undefined);
        sendJson(c.res, 200, { result: page(sorted, body.limit, body.offset).map((f) => pickFields(f, body.fields)) });
      },
    },
    {
      method: 'POST',
      path: '/feedback/purge',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; query: unknown }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, query: { type: 'object', required: true }, wb_user_id: optStr },
        });
        const ids = new Set(purgeIds(body.query, 'Can only purge feedback by specifying one or more feedback ids'));
        const doomed = ctx.store.projectFeedback(body.project_id).filter((f) => ids.has(f.id));
        if (doomed.length > 0) ctx.write({ kind: 'feedback_delete', project_id: body.project_id, ids: doomed.map((f) => f.id) });
        sendJson(c.res, 200, {});
      },
    },
    {
      method: 'POST',
      path: '/feedback/stats',
      handler: async (c) => {
        // Only project_id, start and end are known of this request, so further fields are let through.
        const body = checkBody<{ project_id: string; start: string; end?: string | null; granularity?: number | null; timezone?: string | null; feedback_type?: string | null }>(
          await c.json(),
          {
            fields: {
              project_id: reqStr,
              ...STATS_WINDOW_FIELDS,
              feedback_type: optStr,
            },
          },
        );
        const { window, header } = statsWindow(body);
        const kept = ctx.store.projectFeedback(body.project_id).filter((f) => !body.feedback_type || f.feedback_type === body.feedback_type);
        // The service's answer is not documented; this one mirrors `/calls/stats`: a count per bucket.
        sendJson(c.res, 200, {
          ...header,
          buckets: bucketize(kept, (f) => f.created_at, window).map(({ timestamp, members }) => ({ timestamp, count: members.length })),
        });
      },
    },
  ];
}
