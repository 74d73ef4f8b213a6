import { MutationLog, type Replay } from './persistence.js';
import { applyRecord, type DevRecord, type DevStores, snapshotRecords } from './records.js';
import type { Evicted } from './trace/store.js';

/**
 * Evictions are told in one line per burst: the line waits until no write has evicted for this long, so that
 * concurrent writes (each its own turn of the event loop) do not print a line per evicted trace.
 */
const EVICTION_QUIET_MS = 1000;
/** Under evictions that never pause, a line at least this often. */
const EVICTION_NOTICE_MAX_WAIT_MS = 10_000;

/** The fewest superseded records worth a rewrite of the data file (so that a small file is not rewritten on every delete). */
const MIN_SUPERSEDED_FOR_COMPACTION = 1000;

/**
 * About how many lines of the data file `record` leaves dead once applied: a deletion is dead itself and
 * kills a line per id it names, a put over a stored record or call kills the older line. Counted before the
 * record is applied. Ends and job events merged into a live call or job are not counted: they stay as large
 * as the live data they make up.
 */
function supersededBy(stores: DevStores, record: DevRecord): number {
  switch (record.kind) {
    case 'feedback_delete':
    case 'record_delete':
      return 1 + (record.ids?.length ?? 0);
    case 'calls_delete':
      return 1 + (record.call_ids?.length ?? 0);
    case 'obj_delete':
      // Deleted versions stay (soft-deleted), so only the deletion's own line is dead: compaction folds it
      // into the versions' records.
      return 1;
    case 'training_checkpoints_delete':
      return 1 + (record.steps?.length ?? 0);
    case 'training_model_delete':
      return 2;
    case 'record_put':
      return stores.collections.get(record.collection, record.project_id, record.id) ? 1 : 0;
    case 'call':
      return record.call && stores.trace.call(record.call.project_id, record.call.id) ? 1 : 0;
    default:
      return 0;
  }
}

/**
 * Whether the data file is due for compaction: once the superseded records make up half of its lines (and
 * at least {@link MIN_SUPERSEDED_FOR_COMPACTION}). This bounds the file to about twice the live data plus
 * that minimum, however many deletes and replaces it sees, and costs at most two lines rewritten per
 * superseded line, amortised.
 */
function compactionDue(superseded: number, lines: number): boolean {
  return superseded >= MIN_SUPERSEDED_FOR_COMPACTION && superseded * 2 >= lines;
}

function addEvicted(into: Evicted, more: Evicted): void {
  into.traces += more.traces;
  into.records += more.records;
}

/** How the writer is set up: the bounds it reports evictions against, the operator log, the data file. */
export interface WriterOptions {
  maxTraces: number;
  maxRecords: number;
  log: (line: string) => void;
  /** The `--data` file; none keeps everything in memory only. */
  dataFile?: string;
}

/**
 * The one write path of the dev service's data, trace and training alike: apply the record in memory,
 * append it to the data file, and when it pushed old traces or records out, tell the operator (one line per
 * burst, not one per trace: see {@link EVICTION_QUIET_MS}). Replaying the data file at start takes the same
 * path (without appending), so this is also the one place that keeps the data file's books: how many of its
 * lines are dead (deleted, replaced, evicted or unreadable), and when to rewrite it from the live state (after
 * evictions, see below, and once dead lines pile up, see {@link compactionDue}).
 *
 * @example
 * const writer = DevWriter.open(stores, { maxTraces: 10_000, maxRecords: 100_000, log, dataFile: 'traces.jsonl' });
 * writer.write({ kind: 'feedback', feedback });
 * writer.close();
 */
export class DevWriter {
  private evictionsSinceNotice: Evicted = { traces: 0, records: 0 };
  private evictionNotice?: { timer: NodeJS.Timeout; since: number };
  // The data file keeps evicted traces until it is rewritten; rewriting once as many traces were evicted as
  // are kept bounds it to about twice the live data, at an amortised cost of one record per write.
  private evictedSinceCompaction = 0;
  private supersededSinceCompaction = 0;

  private constructor(
    private readonly stores: DevStores,
    private readonly options: WriterOptions,
    private readonly dataLog?: MutationLog,
  ) {}

  /** A writer for `stores`; with a data file, the stores are first rebuilt from it (see {@link replay}). */
  static open(stores: DevStores, options: WriterOptions): DevWriter {
    if (!options.dataFile) return new DevWriter(stores, options);
    const opened = MutationLog.open(options.dataFile);
    const writer = new DevWriter(stores, options, opened.log);
    writer.replay(opened.replay, options.dataFile);
    return writer;
  }

  /** Applies a record, appends it to the data file, and compacts the file when that is due. */
  readonly write = (record: DevRecord): void => {
    // Written to the file first: a write the disk refuses fails the request, and leaves the data as it was, rather
    // than serve what a restart would not have.
    this.dataLog?.append(record);
    const evicted = this.apply(record);
    if (evicted.traces + evicted.records > 0) this.noticeEvictions(evicted);
    if (this.evictedSinceCompaction >= this.options.maxTraces || this.compactionDue()) this.compact();
  };

  /** Tells the evictions not yet told, then flushes and closes the data file. */
  close(): void {
    this.reportEvictions();
    this.dataLog?.close();
  }

  /**
   * Applies the records read back from the data file (which holds them already), then compacts it when the
   * replay evicted traces or records (the file outgrew a bound, or a bound was lowered) or when it is due.
   */
  private replay(replay: Replay, file: string): void {
    let applied = 0;
    const evicted: Evicted = { traces: 0, records: 0 };
    let unreadable = replay.skippedLines;
    for (const record of replay.mutations) {
      // A line that parses but is not a record this version understands is skipped, not fatal.
      try {
        addEvicted(evicted, this.apply(record));
        applied++;
      } catch {
        unreadable++;
      }
    }
    // Unreadable lines are dropped by a rewrite, like superseded ones.
    this.supersededSinceCompaction += unreadable;
    const skipped = unreadable > 0 ? `, skipped ${unreadable} unreadable line(s)` : '';
    this.options.log(`replayed ${applied} record(s) from ${file}${skipped}`);
    const { traces, records } = evicted;
    if (traces > 0) this.options.log(`evicted ${traces} oldest trace(s) on replay to keep at most ${this.options.maxTraces}; compacting ${file}`);
    if (records > 0) this.options.log(`evicted ${records} oldest ${this.recordsBound()} on replay; compacting ${file}`);
    if (traces + records > 0) {
      this.compact();
    } else if (this.compactionDue()) {
      this.options.log(`compacting ${file}: ${this.supersededSinceCompaction} of its ${this.dataLog?.lines} record(s) were deleted, replaced or evicted`);
      this.compact();
    }
  }

  /** Applies a record to the stores, counting the lines of the data file it leaves dead; returns what it evicted. */
  private apply(record: DevRecord): Evicted {
    // Counted before the record is applied, and kept only once it applied.
    const dead = this.dataLog ? supersededBy(this.stores, record) : 0;
    const evicted = applyRecord(this.stores, record);
    // An evicted record leaves its line dead, like a deleted one; evicted traces have their own rule.
    this.supersededSinceCompaction += dead + evicted.records;
    this.evictedSinceCompaction += evicted.traces;
    return evicted;
  }

  private noticeEvictions(evicted: Evicted): void {
    addEvicted(this.evictionsSinceNotice, evicted);
    const now = performance.now();
    if (!this.evictionNotice) {
      // Unref'd: a pending line must not keep the process alive; close() tells it instead.
      const timer = setTimeout(() => this.reportEvictions(), EVICTION_QUIET_MS).unref();
      this.evictionNotice = { timer, since: now };
    } else if (now - this.evictionNotice.since < EVICTION_NOTICE_MAX_WAIT_MS) {
      this.evictionNotice.timer.refresh();
    }
  }

  private reportEvictions(): void {
    if (this.evictionNotice) clearTimeout(this.evictionNotice.timer);
    this.evictionNotice = undefined;
    const { traces, records } = this.evictionsSinceNotice;
    this.evictionsSinceNotice = { traces: 0, records: 0 };
    const { maxTraces } = this.options;
    if (traces > 0) {
      const total = this.stores.trace.evictedTraces;
      this.options.log(`evicted ${traces} oldest trace(s) to keep at most ${maxTraces} (${total} evicted in total; raise --max-traces to keep more)`);
    }
    if (records > 0) this.options.log(`evicted ${records} oldest ${this.recordsBound()} (raise --max-records to keep more)`);
  }

  private recordsBound(): string {
    return `record(s) to keep at most ${this.options.maxRecords} of each kind (feedback, costs, annotation queues and items, evaluation runs, predictions, scores)`;
  }

  private compactionDue(): boolean {
    return this.dataLog !== undefined && compactionDue(this.supersededSinceCompaction, this.dataLog.lines);
  }

  private compact(): void {
    if (!this.dataLog) return;
    // The snapshot holds the training state too: a rewrite must not drop what is not a trace.
    this.dataLog.rewrite(snapshotRecords(this.stores));
    this.evictedSinceCompaction = 0;
    this.supersededSinceCompaction = 0;
  }
}
