import type { DevContext } from '../context.js';
import { HttpError, sendJson } from '../http.js';
import type { Route } from '../router.js';
import { checkBody } from '../validate.js';
import { presentCall } from './call-view.js';
import { strList } from './fields.js';
import { ObjectLabels } from './object-labels.js';

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

/**
 * Follows a ref's extra path (`attr`/`key` name an object's own field, `index` an array position); undefined
 * when it leads nowhere. Only own properties count, so `constructor`, `__proto__` or an array's `length`
 * lead nowhere rather than into the prototype chain.
 */
function followExtra(val: unknown, extra: string[]): unknown {
  let current = val;
  for (let i = 0; i < extra.length; i += 2) {
    const [step, name] = [extra[i]!, extra[i + 1]!];
    if (current === null || typeof current !== 'object') return undefined;
    if (step === 'index') {
      const i = Number(name);
      current = Array.isArray(current) && Number.isInteger(i) && Object.hasOwn(current, i) ? current[i] : undefined;
    } else if (step === 'attr' || step === 'key') {
      current = !Array.isArray(current) && Object.hasOwn(current, name) ? (current as Record<string, unknown>)[name] : undefined;
    } else return undefined;
  }
  return current;
}

/**
 * `/refs/read_batch`: the value behind each ref, in order: an object or op version (by digest, alias,
 * `latest` or `v<N>`), a call, or a table's row values, followed along any `attr`/`key`/`index` path. A ref
 * that names nothing stored reads as null, so one stale ref does not hide the others.
 */
export function refRoutes(ctx: DevContext): Route[] {
  const labels = new ObjectLabels(ctx);
  const read = (ref: ParsedRef): unknown => {
    const { projectId, kind, name } = ref;
    if (kind === 'call') {
      const call = ctx.store.call(projectId, name);
      return call ? presentCall(call) : undefined;
    }
    if (kind === 'table') return ctx.store.table(projectId, name)?.rows.map((r) => r.val);
    const at = name.lastIndexOf(':');
    const objectId = at < 0 ? name : name.slice(0, at);
    const digest = at < 0 ? 'latest' : name.slice(at + 1);
    return ctx.store.objectVersion(projectId, objectId, labels.resolve(projectId, objectId, digest))?.val;
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
        sendJson(c.res, 200, { vals: parsed.map((p) => followExtra(read(p), p.extra) ?? null) });
      },
    },
  ];
}
