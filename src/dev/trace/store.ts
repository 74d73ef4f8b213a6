import type { CallSchema, EndedCall, Feedback, ObjSchema, StartedCall, StoredFile, StoredTable } from './types.js';

type TableRowData = StoredTable['rows'][number];

/**
 * One change to the trace store. Every write goes through a mutation, so that the same record can be
 * applied in memory and appended to the `--data` log, and replaying the log rebuilds the same state.
 */
export type Mutation =
  | { kind: 'call_start'; start: StartedCall & { id: string; trace_id: string } }
  | { kind: 'call_end'; end: EndedCall }
  | { kind: 'call'; call: CallSchema }
  | { kind: 'calls_delete'; project_id: string; call_ids: string[] }
  // A snapshot keeps version_index, so that compacting the log after a deletion leaves `v<N>` unchanged.
  | { kind: 'obj'; obj: Omit<ObjSchema, 'version_index' | 'is_latest'> & { version_index?: number } }
  // `deleted_at` is when the versions were deleted (absent in logs written before deletions were soft).
  | { kind: 'obj_delete'; project_id: string; object_id: string; digests: string[] | null; deleted_at?: string }
  | { kind: 'table'; table: StoredTable }
  | { kind: 'feedback'; feedback: Feedback }
  | { kind: 'feedback_delete'; project_id: string; ids: string[] }
  | { kind: 'file'; project_id: string; digest: string; name: string; content_base64: string };

const key = (projectId: string, id: string) => `${projectId}\u0000${id}`;

/** What applying one record pushed out of memory to keep the stores within their bounds. */
export interface Evicted {
  /** Whole traces, with their calls, past `maxTraces`. */
  traces: number;
  /** Records of a bounded kind (feedback, costs, annotation queues, evaluation records) past `maxRecords`. */
  records: number;
}

/**
 * The dev service's trace data, in memory. Calls are grouped by trace so that the oldest traces can be
 * evicted once there are more than `maxTraces`; feedback is bounded the same way, the oldest items going once
 * there are more than `maxFeedback`. Objects, tables and files are not evicted (calls, feedback and other
 * objects refer to them by digest): memory grows with what is live in them. The `--data` file does not also
 * grow with what was deleted, replaced or evicted: the writer compacts it (see `compactionDue` in writer.ts).
 */
/** True when `name` (a digest, `latest` or `v<N>`, as the service reads a version's name) names `version`. */
export function namesVersion(name: string, version: ObjSchema): boolean {
  if (name === 'latest') return version.is_latest === 1;
  const index = /^v(\d+)$/.exec(name)?.[1];
  return index !== undefined ? version.version_index === Number(index) : version.digest === name;
}

export class TraceStore {
  private readonly calls = new Map<string, CallSchema>();
  // Ends that arrived before their start (the real service merges the two halves whenever they land).
  private readonly pendingEnds = new Map<string, EndedCall>();
  // Insertion-ordered: the first entry is the oldest trace.
  private readonly traces = new Map<string, Set<string>>();
  private readonly objects = new Map<string, ObjSchema[]>();
  private readonly tables = new Map<string, StoredTable>();
  // Every table row by project and row digest, so that building a table from digests does not scan every table.
  // Rows are content-addressed and tables are never deleted or evicted, so an entry never goes stale.
  private readonly tableRows = new Map<string, TableRowData>();
  // Insertion-ordered, the first is the oldest; a set of items, not ids, since a create may repeat an id.
  private readonly feedback = new Set<Feedback>();
  private readonly files = new Map<string, StoredFile>();
  /** How many traces were evicted since the store was created. */
  evictedTraces = 0;

  constructor(
    private readonly maxTraces: number,
    private readonly maxFeedback: number,
  ) {}

  /** Applies a mutation and returns what it pushed out. */
  apply(mutation: Mutation): Evicted {
    switch (mutation.kind) {
      case 'call_start':
        return { traces: this.putCall(this.merge(mutation.start)), records: 0 };
      case 'call_end':
        this.endCall(mutation.end);
        break;
      case 'call':
        return { traces: this.putCall(mutation.call), records: 0 };
      case 'calls_delete':
        this.deleteCalls(mutation.project_id, mutation.call_ids);
        break;
      case 'obj':
        this.putObject(mutation.obj);
        break;
      case 'obj_delete':
        this.deleteObject(mutation.project_id, mutation.object_id, mutation.digests, mutation.deleted_at ?? new Date().toISOString());
        break;
      case 'table':
        this.putTable(mutation.table);
        break;
      case 'feedback':
        return { traces: 0, records: this.putFeedback(mutation.feedback) };
      case 'feedback_delete':
        this.deleteFeedback(mutation.project_id, mutation.ids);
        break;
      case 'file':
        this.files.set(key(mutation.project_id, mutation.digest), {
          project_id: mutation.project_id,
          digest: mutation.digest,
          name: mutation.name,
          content: Buffer.from(mutation.content_base64, 'base64'),
        });
        break;
      default:
        throw new TypeError(`unknown store record kind ${JSON.stringify((mutation as { kind?: unknown })?.kind)}`);
    }
    return { traces: 0, records: 0 };
  }

  private merge(start: StartedCall & { id: string; trace_id: string }): CallSchema {
    const { otel_dump: _dump, ...fields } = start;
    const call: CallSchema = { ...fields, id: start.id, trace_id: start.trace_id };
    const end = this.pendingEnds.get(key(start.project_id, start.id));
    if (end) {
      this.pendingEnds.delete(key(start.project_id, start.id));
      applyEnd(call, end);
    }
    return call;
  }

  private endCall(end: EndedCall): void {
    const call = this.calls.get(key(end.project_id, end.id));
    if (call) {
      applyEnd(call, end);
      return;
    }
    this.pendingEnds.set(key(end.project_id, end.id), end);
    // Ends whose start never comes (or whose trace was evicted) must not grow the store without bound.
    if (this.pendingEnds.size > this.maxTraces) {
      this.pendingEnds.delete(this.pendingEnds.keys().next().value as string);
    }
  }

  private putCall(call: CallSchema): number {
    const callKey = key(call.project_id, call.id);
    // A call re-sent under another trace leaves its old one, so that a trace's members are exactly its calls.
    const previous = this.calls.get(callKey);
    if (previous && previous.trace_id !== call.trace_id) this.leaveTrace(previous, callKey);
    this.calls.set(callKey, call);
    const traceKey = key(call.project_id, call.trace_id);
    let members = this.traces.get(traceKey);
    if (!members) {
      members = new Set();
      this.traces.set(traceKey, members);
    }
    members.add(callKey);
    return this.evict();
  }

  private evict(): number {
    let evicted = 0;
    while (this.traces.size > this.maxTraces) {
      const [oldest, members] = this.traces.entries().next().value as [string, Set<string>];
      for (const callKey of members) this.calls.delete(callKey);
      this.traces.delete(oldest);
      evicted++;
    }
    this.evictedTraces += evicted;
    return evicted;
  }

  private deleteCalls(projectId: string, callIds: string[]): void {
    for (const id of callIds) {
      const callKey = key(projectId, id);
      // An end still waiting for its start must not bring a deleted call back when the start arrives.
      this.pendingEnds.delete(callKey);
      const call = this.calls.get(callKey);
      if (!call) continue;
      this.calls.delete(callKey);
      this.leaveTrace(call, callKey);
    }
  }

  private leaveTrace(call: CallSchema, callKey: string): void {
    const traceKey = key(call.project_id, call.trace_id);
    const members = this.traces.get(traceKey);
    members?.delete(callKey);
    if (members?.size === 0) this.traces.delete(traceKey);
  }

  private putTable(table: StoredTable): void {
    this.tables.set(key(table.project_id, table.digest), table);
    for (const row of table.rows) if ('val' in row) this.tableRows.set(key(table.project_id, row.digest), row);
  }

  private putFeedback(feedback: Feedback): number {
    this.feedback.add(feedback);
    let evicted = 0;
    for (const oldest of this.feedback) {
      if (this.feedback.size <= this.maxFeedback) break;
      this.feedback.delete(oldest);
      evicted++;
    }
    return evicted;
  }

  private deleteFeedback(projectId: string, ids: string[]): void {
    const doomed = new Set(ids);
    for (const f of this.feedback) if (f.project_id === projectId && doomed.has(f.id)) this.feedback.delete(f);
  }

  private putObject({ version_index, ...obj }: Omit<ObjSchema, 'version_index' | 'is_latest'> & { version_index?: number }): void {
    const objKey = key(obj.project_id, obj.object_id);
    let versions = this.objects.get(objKey) ?? [];
    const same = versions.find((v) => v.digest === obj.digest);
    if (same && same.deleted_at == null) return;
    // The service re-creates a deleted version as a new one (its sqlite store overwrites the row with the next
    // index and no deleted_at; ClickHouse inserts a newer row), so the tombstone gives way to it.
    if (same) versions = versions.filter((v) => v !== same);
    // Indexes keep counting past deleted versions (the service numbers every version, deleted or not), so
    // `v<N>` never names two different versions.
    const next = versions.reduce((n, v) => Math.max(n, v.version_index + 1), 0);
    versions.push({ ...obj, deleted_at: obj.deleted_at ?? null, version_index: version_index ?? next, is_latest: 0 });
    markLatest(versions);
    this.objects.set(objKey, versions);
  }

  /**
   * Soft-deletes versions, as the service does: they stay stored with `deleted_at` set, so that reading one
   * answers "deleted" (not "not found") and their indexes are not reused; queries leave them out.
   */
  private deleteObject(projectId: string, objectId: string, digests: string[] | null, deletedAt: string): void {
    const versions = this.objects.get(key(projectId, objectId));
    if (!versions) return;
    for (const v of versions) {
      if (v.deleted_at == null && (digests === null || digests.includes(v.digest))) v.deleted_at = deletedAt;
    }
    markLatest(versions);
  }

  /** Every stored (started) call of a project, oldest write first. */
  *projectCalls(projectId: string): Iterable<CallSchema> {
    for (const call of this.calls.values()) if (call.project_id === projectId) yield call;
  }

  /** One call, or undefined. */
  call(projectId: string, id: string): CallSchema | undefined {
    return this.calls.get(key(projectId, id));
  }

  /** Every call of one trace. */
  traceCalls(projectId: string, traceId: string): CallSchema[] {
    const members = this.traces.get(key(projectId, traceId));
    if (!members) return [];
    return [...members].map((k) => this.calls.get(k)).filter((c): c is CallSchema => c !== undefined);
  }

  /** How many traces are held now. */
  get traceCount(): number {
    return this.traces.size;
  }

  /** Every live (not deleted) version of one object, oldest first. */
  objectVersions(projectId: string, objectId: string): ObjSchema[] {
    return this.allObjectVersions(projectId, objectId).filter((v) => v.deleted_at == null);
  }

  /** Every version of one object, deleted ones included, oldest first. */
  allObjectVersions(projectId: string, objectId: string): ObjSchema[] {
    return this.objects.get(key(projectId, objectId)) ?? [];
  }

  /**
   * One version of an object by digest, `latest` or `v<N>`; undefined when there is none. Deleted versions
   * count only with `includeDeleted` (reads, which answer a deleted version as such; not alias or tag writes,
   * which the service refuses on a deleted version as on a missing one).
   */
  objectVersion(projectId: string, objectId: string, digest: string, includeDeleted = false): ObjSchema | undefined {
    const versions = includeDeleted ? this.allObjectVersions(projectId, objectId) : this.objectVersions(projectId, objectId);
    return versions.find((v) => namesVersion(digest, v));
  }

  /** Every live version of every object of a project. */
  *projectObjects(projectId: string): Iterable<ObjSchema> {
    for (const versions of this.objects.values()) {
      for (const v of versions) if (v.project_id === projectId && v.deleted_at == null) yield v;
    }
  }

  /** A table by digest. */
  table(projectId: string, digest: string): StoredTable | undefined {
    return this.tables.get(key(projectId, digest));
  }

  /** A row of any of the project's tables by its digest (rows are content-addressed, so any copy will do). */
  tableRow(projectId: string, rowDigest: string): TableRowData | undefined {
    return this.tableRows.get(key(projectId, rowDigest));
  }

  /**
   * A table's row with its value: its own, or, for a row the table names by digest alone, the row of that
   * digest stored since (the service joins a table's row digests to its rows when it reads); undefined while
   * there is none, which a read leaves out as the service's join does.
   */
  resolveRow(projectId: string, row: StoredTable['rows'][number]): TableRowData | undefined {
    return 'val' in row ? row : this.tableRow(projectId, row.digest);
  }

  /** Every feedback item of a project, oldest first. */
  projectFeedback(projectId: string): Feedback[] {
    return [...this.feedback].filter((f) => f.project_id === projectId);
  }

  /** A file by digest. */
  file(projectId: string, digest: string): StoredFile | undefined {
    return this.files.get(key(projectId, digest));
  }

  /** Every file of a project. */
  projectFiles(projectId: string): StoredFile[] {
    return [...this.files.values()].filter((f) => f.project_id === projectId);
  }

  /**
   * The mutations that rebuild the current state, used to compact the `--data` log after eviction.
   * Calls come out whole; pending ends are kept so that a late start still finds them.
   */
  *snapshot(): Iterable<Mutation> {
    for (const versions of this.objects.values()) {
      for (const { is_latest: _l, ...obj } of versions) yield { kind: 'obj', obj };
    }
    for (const table of this.tables.values()) yield { kind: 'table', table };
    for (const file of this.files.values()) {
      yield {
        kind: 'file',
        project_id: file.project_id,
        digest: file.digest,
        name: file.name,
        content_base64: file.content.toString('base64'),
      };
    }
    for (const feedback of this.feedback) yield { kind: 'feedback', feedback };
    for (const members of this.traces.values()) {
      for (const callKey of members) {
        const call = this.calls.get(callKey);
        if (call) yield { kind: 'call', call };
      }
    }
    for (const end of this.pendingEnds.values()) yield { kind: 'call_end', end };
  }
}

/**
 * Marks the one latest version as the service's ClickHouse store ranks them: the newest live version, or the
 * newest of all when every version is deleted (so that `latest` then reads as deleted, not as missing).
 */
function markLatest(versions: ObjSchema[]): void {
  for (const v of versions) v.is_latest = 0;
  const live = versions.filter((v) => v.deleted_at == null);
  const latest = (live.length > 0 ? live : versions).at(-1);
  if (latest) latest.is_latest = 1;
}

function applyEnd(call: CallSchema, end: EndedCall): void {
  call.ended_at = end.ended_at;
  call.summary = { ...(call.summary ?? {}), ...end.summary };
  if (end.exception !== undefined) call.exception = end.exception;
  if (end.output !== undefined) call.output = end.output;
  if (end.wb_run_step_end !== undefined) call.wb_run_step_end = end.wb_run_step_end;
}
