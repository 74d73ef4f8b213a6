import type { DevContext } from '../context.js';
import { HttpError, sendJson } from '../http.js';
import type { Route } from '../router.js';
import { checkBody } from '../validate.js';
import { writeTable } from './object-writes.js';
import { page, sortRecords } from './query-expr.js';
import type { TableRow } from './types.js';

const str = { type: 'string' } as const;
const optInt = { type: 'integer', nullable: true } as const;

/** Tables: rows are content-addressed, and a table's digest is the digest of its row digests. */
export function tableRoutes(ctx: DevContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/table/create',
      handler: async (c) => {
        const { table } = checkBody<{ table: { project_id: string; rows: Record<string, unknown>[] } }>(await c.json(), {
          strict: true,
          fields: {
            table: {
              type: 'object',
              required: true,
              strict: true,
              fields: {
                project_id: { ...str, required: true },
                rows: { type: 'array', required: true, items: { type: 'object' } },
              },
            },
          },
        });
        sendJson(c.res, 200, writeTable(ctx, table.project_id, table.rows));
      },
    },
    {
      method: 'POST',
      path: '/table/query',
      handler: async (c) => {
        const body = checkBody<{
          project_id: string;
          digest: string;
          filter?: { row_digests?: string[] | null } | null;
          limit?: number | null;
          offset?: number | null;
          sort_by?: { field: string; direction: string }[] | null;
        }>(await c.json(), {
          strict: true,
          fields: {
            project_id: { ...str, required: true },
            digest: { ...str, required: true },
            filter: {
              type: 'object',
              nullable: true,
              strict: true,
              fields: { row_digests: { type: 'array', items: str, nullable: true } },
            },
            limit: optInt,
            offset: optInt,
            sort_by: { type: 'array', nullable: true, items: { type: 'object', fields: { field: { ...str, required: true }, direction: { ...str, required: true } } } },
          },
        });
        const table = ctx.store.table(body.project_id, body.digest);
        if (!table) throw new HttpError(404, `Table ${body.digest} not found`);
        const wanted = body.filter?.row_digests;
        let rows: TableRow[] = table.rows
          .map((r, i) => ({ digest: r.digest, val: r.val, original_index: i }))
          .filter((r) => !wanted || wanted.includes(r.digest));
        // Sorting by a row field uses `val.<field>` paths, as the service does.
        rows = sortRecords(
          rows,
          body.sort_by?.map((s) => ({ field: s.field.startsWith('val.') ? s.field : `val.${s.field}`, direction: s.direction })),
        );
        sendJson(c.res, 200, { rows: page(rows, body.limit, body.offset) });
      },
    },
  ];
}
