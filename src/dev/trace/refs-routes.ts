import type { DevContext } from '../context.js';
import { HttpError, sendJson } from '../http.js';
import type { Route } from '../router.js';
import { checkBody } from '../validate.js';
import { strList } from './fields.js';
import { followExtra, parseRef, RefValues } from './ref-values.js';

/** The 400 the service answers for a ref it will not read (its `ValueError`). */
const unreadable = (message: string) => new HttpError(400, message);

/**
 * `/refs/read_batch`: the value behind each object or op ref, in order, followed along any
 * `attr`/`key`/`index`/`id` path, as the service reads them (clickhouse_trace_server_batched,
 * `refs_read_batch`): by exact digest only (`latest` is a 400, and an alias or `v<N>` is no digest), and a
 * digest that names no version a 404 for the whole batch, while a deleted version reads as null. Call and table refs are not read (a 400): a call is
 * read with `/call/read`, a table with `/table/query`.
 */
export function refRoutes(ctx: DevContext): Route[] {
  const values = new RefValues(ctx);
  return [
    {
      method: 'POST',
      path: '/refs/read_batch',
      handler: async (c) => {
        const body = checkBody<{ refs: string[] }>(await c.json(), { strict: true, fields: { refs: { ...strList, required: true } } });
        const parsed = body.refs.map((ref, i) => {
          const p = parseRef(ref);
          if (!p) {
            throw new HttpError(422, [
              { loc: ['body', 'refs', i], msg: 'Input should be a weave:///entity/project/{object|op|call|table}/... ref', type: 'value_error' },
            ]);
          }
          return p;
        });
        if (parsed.some((p) => p.kind === 'table')) throw unreadable('Table refs not supported');
        if (parsed.some((p) => p.kind === 'call')) throw unreadable('Call refs not supported');
        const roots = parsed.map((p) => {
          if (p.name.endsWith(':latest')) throw unreadable('Reading refs with `latest` is not supported');
          return values.root(p.projectId, p.name);
        });
        const missing = parsed.filter((_, i) => !roots[i]!.found).map((p) => p.name);
        if (missing.length > 0) throw new HttpError(404, `Obj ${missing[0]} not found`);
        sendJson(c.res, 200, { vals: parsed.map((p, i) => followExtra(roots[i]!.val, p.extra, values)) });
      },
    },
  ];
}
