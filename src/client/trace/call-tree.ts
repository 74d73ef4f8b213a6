import type { CallSchema } from './types/calls.js';

/** A call with the calls it made, in start order. */
export interface CallNode {
  call: CallSchema;
  children: CallNode[];
}

/**
 * Nests the calls of one trace by `parent_id`. A call whose parent is not among `calls` becomes a root, and
 * so does one call of any parent cycle (bad data must not hang a consumer walking the tree). Roots and
 * children are ordered by `started_at`, then `ended_at` (siblings often start in the same millisecond), then `id`.
 */
export function buildCallTree(calls: readonly CallSchema[]): CallNode[] {
  const nodes = new Map<string, CallNode>();
  for (const call of calls) nodes.set(call.id, { call, children: [] });

  const roots: CallNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.call.parent_id ? nodes.get(node.call.parent_id) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }

  const visited = new Set<CallNode>();
  const visit = (node: CallNode) => {
    const stack = [node];
    while (stack.length > 0) {
      const current = stack.pop() as CallNode;
      if (visited.has(current)) continue;
      visited.add(current);
      stack.push(...current.children);
    }
  };
  for (const root of roots) visit(root);
  for (const node of nodes.values()) {
    if (visited.has(node)) continue;
    // Part of a cycle: detach it from its parent and make it a root.
    const parent = node.call.parent_id ? nodes.get(node.call.parent_id) : undefined;
    if (parent) parent.children = parent.children.filter((child) => child !== node);
    roots.push(node);
    visit(node);
  }

  sortTree(roots);
  return roots;
}

function sortTree(nodes: CallNode[]): void {
  nodes.sort(byStart);
  for (const node of nodes) sortTree(node.children);
}

/** An ISO-8601 time in microseconds, keeping the sub-millisecond digits that `Date.parse` drops. */
function micros(iso: string | null | undefined): number {
  if (!iso) return Number.POSITIVE_INFINITY;
  const fraction = /\.(\d+)/.exec(iso)?.[1] ?? '';
  const millis = Date.parse(iso);
  if (Number.isNaN(millis)) return Number.POSITIVE_INFINITY;
  return Math.floor(millis / 1000) * 1_000_000 + Number(fraction.padEnd(6, '0').slice(0, 6));
}

function byStart(a: CallNode, b: CallNode): number {
  const start = micros(a.call.started_at) - micros(b.call.started_at);
  if (start !== 0 && !Number.isNaN(start)) return start;
  const end = micros(a.call.ended_at) - micros(b.call.ended_at);
  if (end !== 0 && !Number.isNaN(end)) return end;
  return a.call.id < b.call.id ? -1 : a.call.id > b.call.id ? 1 : 0;
}
