import type { DevContext } from '../context.js';
import { HttpError, sendJson } from '../http.js';
import type { Route } from '../router.js';
import { checkBody } from '../validate.js';
import { strList } from './fields.js';

/** A parsed `weave:///entity/project/<kind>/<name>[/<extra kind>/<extra name>...]`. */
interface ParsedRef {
  projectId: string;
  kind: string;
  name: string;
  extra: string[];
}

/** The ref's parts, or undefined when it is not a ref (including a malformed `%` escape, which is a 422, not a 500). */
function parseRef(ref: string): ParsedRef | undefined {
  const m = /^weave:\/\/\/([^/]+)\/([^/]+)\/(object|op|call|table)\/([^/]+)((?:\/[^/]+\/[^/]+)*)$/.exec(ref);
  if (!m) return undefined;
  try {
    const extra = (m[5] ?? '').split('/').filter((s) => s !== '').map(decodeURIComponent);
    return { projectId: `${m[1]}/${m[2]}`, kind: m[3]!, name: decodeURIComponent(m[4]!), extra };
  } catch (err) {
    if (err instanceof URIError) return undefined;
    throw err;
  }
}

/** How `followExtra` reaches what a path passes through: a ref string found on the way, a table's row. */
interface RefReader {
  /** The value of an object ref string met inside a value, or undefined when it is not one or names nothing. */
  objectRef(ref: string): unknown;
  /** A row of the table a table ref string names, by row digest. */
  tableRow(tableRef: string, rowDigest: string): unknown;
}

/**
 * Follows a ref's extra path (`attr`/`key` name an object's own field, `index` an array position, `id` a row
 * of the table ref the path has reached, by digest); null when it leads nowhere. A ref string met on the way
 * is followed, as the service does, so `dataset:<digest>/attr/rows/id/<row digest>` reads one row of a
 * dataset. Only own properties count, so `constructor`, `__proto__` or an array's `length` lead nowhere
 * rather than into the prototype chain.
 */
function followExtra(val: unknown, extra: string[], reader: RefReader): unknown {
  let current = val;
  for (let i = 0; i < extra.length; i += 2) {
    const [step, name] = [extra[i]!, extra[i + 1]!];
    if (typeof current === 'string' && current.startsWith('weave:///')) {
      current = step === 'id' ? reader.tableRow(current, name) : reader.objectRef(current);
      if (step === 'id') continue;
    }
    if (current === null || typeof current !== 'object') return null;
    if (step === 'index') {
      const i = Number(name);
      current = Array.isArray(current) && Number.isInteger(i) && Object.hasOwn(current, i) ? current[i] : undefined;
    } else if (step === 'attr' || step === 'key') {
      current = !Array.isArray(current) && Object.hasOwn(current, name) ? (current as Record<string, unknown>)[name] : undefined;
    } else return null;
  }
  return current ?? null;
}

/** The 400 the service answers for a ref it will not read (its `ValueError`). */
const unreadable = (message: string) => new HttpError(400, message);

/**
 * `/refs/read_batch`: the value behind each object or op ref, in order, followed along any
 * `attr`/`key`/`index`/`id` path, as the service reads them (clickhouse_trace_server_batched,
 * `refs_read_batch`): by exact digest only (`latest` is a 400, and an alias or `v<N>` is no digest), a
 * deleted version as null, and a digest that names no version a 404 for the whole batch. Call and table refs
 * are not read (a 400): a call is read with `/call/read`, a table with `/table/query`.
 */
export function refRoutes(ctx: DevContext): Route[] {
  const objectVal = (projectId: string, name: string): { found: boolean; val?: unknown } => {
    const at = name.lastIndexOf(':');
    const [objectId, digest] = at < 0 ? [name, ''] : [name.slice(0, at), name.slice(at + 1)];
    const version = ctx.store.objectVersions(projectId, objectId).find((v) => v.digest === digest);
    return version ? { found: true, val: version.val } : { found: false };
  };
  const reader: RefReader = {
    objectRef: (ref) => {
      const p = parseRef(ref);
      return p && (p.kind === 'object' || p.kind === 'op') ? followExtra(objectVal(p.projectId, p.name).val, p.extra, reader) : undefined;
    },
    tableRow: (tableRef, rowDigest) => {
      const p = parseRef(tableRef);
      const table = p?.kind === 'table' ? ctx.store.table(p.projectId, p.name) : undefined;
      return table?.rows.find((r) => r.digest === rowDigest)?.val;
    },
  };
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
          return objectVal(p.projectId, p.name);
        });
        const missing = parsed.filter((_, i) => !roots[i]!.found).map((p) => p.name);
        if (missing.length > 0) throw new HttpError(404, `Obj ${missing[0]} not found`);
        sendJson(c.res, 200, { vals: parsed.map((p, i) => followExtra(roots[i]!.val, p.extra, reader)) });
      },
    },
  ];
}
