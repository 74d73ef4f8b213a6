import type { DevContext } from '../context.js';
import { HttpError, sendJson, sendJsonl } from '../http.js';
import { canonicalJson } from '../ids.js';
import type { Route } from '../router.js';
import { checkBody, type ObjectSpec } from '../validate.js';
import { optBool, optObject, PAGING, type Paging, reqStr, type SortBy, strList } from './fields.js';
import { rowDigest, writeTable, writeTableRows } from './object-writes.js';
import { getPath, page } from './query-expr.js';
import type { StoredTable, TableRow } from './types.js';

const row = { type: 'object', required: true } as const;
const index = { type: 'integer', required: true } as const;

const QUERY_SPEC: ObjectSpec = {
  strict: true,
  fields: { project_id: reqStr, digest: reqStr, filter: optObject({ row_digests: { ...strList, nullable: true } }), ...PAGING },
};

type TableQueryReq = Paging & { project_id: string; digest: string; filter?: { row_digests?: string[] | null } | null };

/** One change of `/table/update`: exactly one of the three keys. */
type TableUpdate = { append?: { row: unknown }; pop?: { index: number }; insert?: { index: number; row: unknown } };

function needTable(ctx: DevContext, projectId: string, digest: string): StoredTable {
  const table = ctx.store.table(projectId, digest);
  if (!table) throw new HttpError(404, `Table ${digest} not found in project ${projectId}.`);
  return table;
}

/**
 * The rows a table query selects: filter by row digest, sort (see {@link sortRows}), page.
 * A digest that names no table has no rows: the service's query then simply finds none.
 */
function queryRows(ctx: DevContext, body: TableQueryReq): TableRow[] {
  const wanted = body.filter?.row_digests;
  // A row named by digest alone reads once a row of that digest is stored, and is left out until then, its
  // place still counted in original_index (the service's json_each position, joined to its stored rows).
  const rows = (ctx.store.table(body.project_id, body.digest)?.rows ?? [])
    .flatMap((r, i) => {
      const found = ctx.store.resolveRow(body.project_id, r);
      return found ? [{ digest: r.digest, val: found.val, original_index: i }] : [];
    })
    .filter((r) => !wanted || wanted.includes(r.digest));
  return page(sortRows(rows, body.sort_by ?? []), body.limit, body.offset);
}

/**
 * A row value's sort key as the service orders rows (`json_extract` of the path into the row, sorted by
 * storage class): nothing or null first, then numbers (a bool as 1 or 0), then text (an object or list as
 * its JSON).
 */
function rowKey(val: unknown, field: string): [number, number | string] {
  const value = getPath(val, field);
  if (value === null || value === undefined) return [0, 0];
  if (typeof value === 'number' || typeof value === 'boolean') return [1, Number(value)];
  return [2, typeof value === 'string' ? value : JSON.stringify(value)];
}

/**
 * Rows in the order of `sort_by`, each field a dot path into the row's value (`col_a.prop_b`, as the
 * service's `TableQueryReq` documents it), descending the whole order turned; stable, so ties keep the
 * table's order.
 */
function sortRows(rows: TableRow[], sortBy: SortBy[]): TableRow[] {
  const compare = ([ra, a]: [number, number | string], [rb, b]: [number, number | string]) => (ra !== rb ? ra - rb : a === b ? 0 : a < b ? -1 : 1);
  return [...rows].sort((x, y) => {
    for (const { field, direction } of sortBy) {
      const order = compare(rowKey(x.val, field), rowKey(y.val, field));
      if (order !== 0) return direction === 'desc' ? -order : order;
    }
    return 0;
  });
}

/**
 * Applies `/table/update`'s changes in order; returns the new rows and the digest of each row every change
 * touched, in order: the row appended or inserted, and the row popped too (the service's `updated_row_digests`).
 */
function applyUpdates(base: StoredTable['rows'], updates: TableUpdate[]): { rows: StoredTable['rows']; touched: string[] } {
  const rows = [...base];
  const touched: string[] = [];
  updates.forEach((u, i) => {
    const keys = Object.keys(u);
    if (keys.length !== 1) {
      throw new HttpError(422, [{ loc: ['body', 'updates', i], msg: 'An update has exactly one of append, pop and insert', type: 'value_error' }]);
    }
    // The service checks the index as it applies the change, a `ValueError("Index out of range")`: a 400.
    const outOfRange = (op: string, max: number, at: number) => {
      if (at < 0 || at > max) throw new HttpError(400, `Index out of range: updates[${i}].${op}.index is ${at}, not within 0..${max}`);
    };
    if (u.append) {
      const digest = rowDigest(u.append.row);
      rows.push({ digest, val: u.append.row });
      touched.push(digest);
    } else if (u.pop) {
      outOfRange('pop', rows.length - 1, u.pop.index);
      touched.push(rows.splice(u.pop.index, 1)[0]!.digest);
    } else if (u.insert) {
      outOfRange('insert', rows.length, u.insert.index);
      const digest = rowDigest(u.insert.row);
      rows.splice(u.insert.index, 0, { digest, val: u.insert.row });
      touched.push(digest);
    }
  });
  return { rows, touched };
}

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
            table: { type: 'object', required: true, strict: true, fields: { project_id: reqStr, rows: { type: 'array', required: true, items: { type: 'object' } } } },
          },
        });
        sendJson(c.res, 200, writeTable(ctx, table.project_id, table.rows));
      },
    },
    {
      method: 'POST',
      path: '/table/create_from_digests',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; row_digests: string[] }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, row_digests: { ...strList, required: true } },
        });
        // The service stores the digests as given, checking none (sqlite_trace_server
        // table_create_from_digests inserts the table row alone): a digest no row has yet is kept, by digest.
        const rows = body.row_digests.map((digest) => ctx.store.tableRow(body.project_id, digest) ?? { digest });
        sendJson(c.res, 200, { digest: writeTableRows(ctx, body.project_id, rows).digest });
      },
    },
    {
      method: 'POST',
      path: '/table/update',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; base_digest: string; updates: TableUpdate[] }>(await c.json(), {
          strict: true,
          fields: {
            project_id: reqStr,
            base_digest: reqStr,
            updates: {
              type: 'array',
              required: true,
              items: {
                type: 'object',
                strict: true,
                fields: { append: optObject({ row }), pop: optObject({ index }), insert: optObject({ index, row }) },
              },
            },
          },
        });
        const base = needTable(ctx, body.project_id, body.base_digest);
        const { rows, touched } = applyUpdates(base.rows, body.updates);
        sendJson(c.res, 200, { digest: writeTableRows(ctx, body.project_id, rows).digest, updated_row_digests: touched });
      },
    },
    {
      method: 'POST',
      path: '/table/query',
      handler: async (c) => {
        sendJson(c.res, 200, { rows: queryRows(ctx, checkBody<TableQueryReq>(await c.json(), QUERY_SPEC)) });
      },
    },
    {
      method: 'POST',
      path: '/table/query_stream',
      handler: async (c) => {
        sendJsonl(c.res, queryRows(ctx, checkBody<TableQueryReq>(await c.json(), QUERY_SPEC)));
      },
    },
    {
      method: 'POST',
      path: '/table/query_stats',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; digest: string }>(await c.json(), { strict: true, fields: { project_id: reqStr, digest: reqStr } });
        sendJson(c.res, 200, { count: needTable(ctx, body.project_id, body.digest).rows.length });
      },
    },
    {
      method: 'POST',
      path: '/table/query_stats_batch',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; digests?: string[] | null; include_storage_size?: boolean | null }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, digests: { ...strList, nullable: true }, include_storage_size: optBool },
        });
        // Digests with no table are left out, as the service's batch read does.
        const tables = (body.digests ?? []).flatMap((digest) => {
          const table = ctx.store.table(body.project_id, digest);
          if (!table) return [];
          // Rows named by digest alone count (the service counts the digests) but weigh nothing until stored.
          const stored = table.rows.map((r) => ctx.store.resolveRow(body.project_id, r)).filter((r) => r !== undefined);
          const size = body.include_storage_size ? { storage_size_bytes: stored.reduce((n, r) => n + Buffer.byteLength(canonicalJson(r.val)), 0) } : {};
          return [{ count: table.rows.length, digest, ...size }];
        });
        sendJson(c.res, 200, { tables });
      },
    },
  ];
}
