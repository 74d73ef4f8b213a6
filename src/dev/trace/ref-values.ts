import type { DevContext } from '../context.js';

/** A parsed `weave:///entity/project/<kind>/<name>[/<extra kind>/<extra name>...]`. */
export interface ParsedRef {
  projectId: string;
  kind: string;
  name: string;
  extra: string[];
}

/** The ref's parts, or undefined when it is not a ref (including a malformed `%` escape, which is a 422, not a 500). */
export function parseRef(ref: string): ParsedRef | undefined {
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
 * An object's or op's ref read as its kind, object id and digest (`weave:///e/p/op/predict:abc` → op, predict, abc),
 * or undefined when it is no ref of either.
 */
export function parseVersionRef(ref: string): (ParsedRef & { objectId: string; digest: string | undefined }) | undefined {
  const p = parseRef(ref);
  if (!p || (p.kind !== 'object' && p.kind !== 'op')) return undefined;
  const at = p.name.lastIndexOf(':');
  return { ...p, objectId: at < 0 ? p.name : p.name.slice(0, at), digest: at < 0 ? undefined : p.name.slice(at + 1) };
}

/** How `followExtra` reaches what a path passes through: a ref string found on the way, a table's row. */
export interface RefReader {
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
export function followExtra(val: unknown, extra: string[], reader: RefReader): unknown {
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

/** Reads object refs the way the service does: a version by exact digest, followed along its path. */
export class RefValues implements RefReader {
  constructor(private readonly ctx: DevContext) {}

  /**
   * The value of `<object id>:<digest>` in a project, and whether that version is stored. A deleted version is
   * found, with the value null: the service reads a deleted version's ref as null, not as a missing one.
   */
  root(projectId: string, name: string): { found: boolean; val?: unknown } {
    const at = name.lastIndexOf(':');
    const [objectId, digest] = at < 0 ? [name, ''] : [name.slice(0, at), name.slice(at + 1)];
    const version = this.ctx.store.allObjectVersions(projectId, objectId).find((v) => v.digest === digest);
    if (!version) return { found: false };
    return { found: true, val: version.deleted_at == null ? version.val : null };
  }

  objectRef(ref: string): unknown {
    const p = parseRef(ref);
    if (!p || (p.kind !== 'object' && p.kind !== 'op')) return undefined;
    const root = this.root(p.projectId, p.name);
    return root.found ? followExtra(root.val, p.extra, this) : undefined;
  }

  tableRow(tableRef: string, rowDigest: string): unknown {
    const p = parseRef(tableRef);
    const table = p?.kind === 'table' ? this.ctx.store.table(p.projectId, p.name) : undefined;
    const row = table?.rows.find((r) => r.digest === rowDigest);
    return row && this.ctx.store.resolveRow(p!.projectId, row)?.val;
  }
}
