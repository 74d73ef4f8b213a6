import type { DevContext } from '../context.js';
import { sendJson } from '../http.js';
import { uuidv7 } from '../ids.js';
import type { Route } from '../router.js';
import { checkBody, type FieldSpec } from '../validate.js';
import { matchesQuery, page, pickFields, sortRecords } from './query-expr.js';
import type { Feedback } from './types.js';

const str = { type: 'string' } as const;
const optStr = { type: 'string', nullable: true } as const;
const optInt = { type: 'integer', nullable: true } as const;

const CREATE_FIELDS: Record<string, FieldSpec> = {
  id: optStr,
  project_id: { ...str, required: true },
  weave_ref: { ...str, required: true },
  creator: optStr,
  feedback_type: { ...str, required: true },
  payload: { type: 'object', required: true },
  annotation_ref: optStr,
  runnable_ref: optStr,
  call_ref: optStr,
  trigger_ref: optStr,
  wb_user_id: optStr,
};

/** Feedback: create (ids are UUIDv7 unless given) and query with fields, query, sort and paging. */
export function feedbackRoutes(ctx: DevContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/feedback/create',
      handler: async (c) => {
        const req = checkBody<Partial<Feedback> & { project_id: string; weave_ref: string; feedback_type: string; payload: Record<string, unknown> }>(
          await c.json(),
          { strict: true, fields: CREATE_FIELDS },
        );
        const feedback: Feedback = {
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
          wb_user_id: null,
          created_at: new Date().toISOString(),
        };
        ctx.write({ kind: 'feedback', feedback });
        sendJson(c.res, 200, {
          id: feedback.id,
          created_at: feedback.created_at,
          wb_user_id: feedback.wb_user_id,
          payload: feedback.payload,
        });
      },
    },
    {
      method: 'POST',
      path: '/feedback/query',
      handler: async (c) => {
        const body = checkBody<{
          project_id: string;
          fields?: string[] | null;
          query?: unknown;
          sort_by?: { field: string; direction: string }[] | null;
          limit?: number | null;
          offset?: number | null;
        }>(await c.json(), {
          strict: true,
          fields: {
            project_id: { ...str, required: true },
            fields: { type: 'array', items: str, nullable: true },
            query: { type: 'object', nullable: true },
            sort_by: { type: 'array', nullable: true, items: { type: 'object', fields: { field: { ...str, required: true }, direction: { ...str, required: true } } } },
            limit: optInt,
            offset: optInt,
          },
        });
        const kept = ctx.store.projectFeedback(body.project_id).filter((f) => matchesQuery(body.query ?? undefined, f));
        const sorted = sortRecords(kept, body.sort_by ?? undefined);
        sendJson(c.res, 200, { result: page(sorted, body.limit, body.offset).map((f) => pickFields(f, body.fields)) });
      },
    },
  ];
}
