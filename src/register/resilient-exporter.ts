import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { reportOnce } from '../diagnostics.js';
import type { ExportStats } from './export-stats.js';
import type { OtlpExporter } from './otlp-exporter.js';

/** An export request: see {@link ResilientExporter.request}. */
interface Request {
  settled: Promise<void>;
  start: () => void;
}

/**
 * Starts the requests one per turn of the event loop, the first at once. Each is encoded as it starts, and a backlog
 * of thousands of spans (a service that was down, back again) encoded in one go held the app's event loop for
 * tens of milliseconds (up to 29 ms in the bench of a misbehaving backend, against 14 ms with a backend never down;
 * 20 ms at most one request per turn).
 */
function startOneATurn(requests: readonly Request[]): void {
  let next = 0;
  const startNext = () => {
    requests[next++]!.start();
    if (next < requests.length) setImmediate(startNext);
  };
  startNext();
}

/**
 * `resultCallback`, called at the latest after `timeoutMillis`, by a timer set as the export starts. The batch
 * processor stops waiting for an export a second after the requests' own timeout, and logs OTel's `Error: Timeout`
 * each time it does, outside weft's once-per-kind reports. A request's own timer starts later (after its gzip, and
 * a backlog's requests one per turn): on an event loop held for seconds in between, the processor's timer ran out
 * first. It is answered by then; the requests are still counted as they settle, and a flush still waits for them.
 */
function answerWithin(resultCallback: (result: ExportResult) => void, timeoutMillis: number): (result: ExportResult) => void {
  let answered = false;
  const answer = () => {
    if (answered) return;
    answered = true;
    clearTimeout(timer);
    resultCallback({ code: ExportResultCode.SUCCESS });
  };
  const timer = setTimeout(answer, timeoutMillis);
  timer.unref();
  return answer;
}

/** The HTTP status of a failed export, when the service answered. */
function statusOf(error: unknown): number | undefined {
  const status = (error as { code?: unknown } | undefined)?.code;
  return typeof status === 'number' ? status : undefined;
}

function isPermanent(error: unknown): boolean {
  const status = statusOf(error);
  return status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/**
 * Which kind of passing failure: each is reported once (a service down, then answering 500, then hanging is three
 * things to know, not one), and a kind says no more than its class: a status, a timeout, a system error's code.
 */
function failureKind(error: unknown): string {
  const status = statusOf(error);
  if (status !== undefined) return `HTTP ${status}`;
  if ((error as { timedOut?: unknown } | undefined)?.timedOut === true) return 'timeout';
  const code = (error as { code?: unknown } | undefined)?.code ?? (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : typeof error;
}

function describe(error: unknown): string {
  const status = statusOf(error);
  if (status !== undefined) return `HTTP ${status}`;
  const message = error instanceof Error ? error.message : String(error);
  // Error messages of the HTTP transport can carry a response body; keep the log line short.
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}

// After a failure for a passing reason, exports pause: 1 s, doubling up to 30 s while the backend stays down.
const FIRST_PAUSE_MS = 1000;
const LONGEST_PAUSE_MS = 30_000;
// A Retry-After is honoured up to this long; a service asking for more is treated as down for that long.
const LONGEST_RETRY_AFTER_MS = 5 * 60_000;

/**
 * Wraps the OTLP exporter so that a failing backend never costs the app anything and loses as little as possible:
 * - spans of a batch that failed for a passing reason (network, timeout, 5xx after the OTLP exporter's own
 *   retries) are kept, up to `maxRetrySpans`, and sent again in front of the next batch, so that a flapping
 *   backend loses nothing once it recovers;
 * - while the backend is failing, exports pause (exponential backoff): batches go straight to the kept spans
 *   instead of the network, so the queue drains, memory stays bounded, and no request or retry timer keeps a
 *   finished app alive, until the kept spans would overflow: then a batch tries the service, which may be back
 *   (see {@link ResilientExporter.mayProbe}); an explicit flush still tries once, a single attempt (see {@link ResilientExporter.backendDown}),
 *   and, while the service is known to hang, only the last flush before the end does (see {@link ResilientExporter.retryPending});
 * - spans refused for good (4xx other than 408/429) or beyond the bound are dropped and counted;
 * - every failure is reported once per kind through the diagnostic logger, never thrown.
 *
 * It answers SUCCESS to the batch processor after accounting for the failure itself, because the processor's
 * own handling of a failed export is to log every time and forget the spans.
 */
export class ResilientExporter implements SpanExporter {
  private pending: ReadableSpan[] = [];
  /** Each export request in flight: its spans, the means to stop waiting for it early, or to count it otherwise. */
  private readonly inFlight = new Map<Promise<void>, { batch: ReadableSpan[]; letGo: () => void; finish: (count: () => void) => void }>();
  // Times are performance.now()'s, which never steps: the wall clock can go back an hour (NTP, a VM resumed), which
  // would hold every export back for as long.
  private lastFailureAt = 0;
  /** Spans the answer being read refused; see {@link ResilientExporter.noteRejected}. */
  private rejectedInAnswer = 0;
  // Failures counted, so that "has it failed since?" does not depend on the clock's millisecond.
  private failures = 0;
  /** Whether a batch is out trying a paused service (see {@link ResilientExporter.mayProbe}). */
  private probing = false;
  private pauseMs = 0;
  private pausedUntil = 0;
  /** Whether the last trouble was a request left without an answer (timed out, or weft gave up on it). */
  private hanging = false;
  /** Until when the service asked not to be sent anything (`Retry-After`); even a flush waits for it. */
  private heldUntil = 0;
  private stopping: Promise<void> | undefined;
  /** Sends the spans kept for a retry as the pause ends (see {@link ResilientExporter.retryWhenPauseEnds}). */
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly inner: OtlpExporter,
    private readonly stats: ExportStats,
    private readonly target: string,
    private readonly maxRetrySpans: number,
    /** Most spans in one request, the backlog included. */
    private readonly maxBatchSize: number,
    /** The longest wait of one request; the batch processor is answered by then (see {@link answerWithin}). */
    private readonly exportTimeoutMillis: number,
    /** Appended to the first failure report, e.g. how to start the local dev service. */
    private readonly hint = '',
    /** Appended to the report of an export refused with this status: what to check, naming the option and variable. */
    private readonly refusedHint: (status: number | undefined) => string = () => ' Check the API key and project.',
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.stats.spansQueued -= spans.length;
    if (performance.now() < this.pausedUntil) {
      if (this.mayProbe(spans.length)) this.probe(spans);
      else this.keep(spans);
      this.retryWhenPauseEnds();
      resultCallback({ code: ExportResultCode.SUCCESS });
      return;
    }
    this.send(spans, answerWithin(resultCallback, this.exportTimeoutMillis));
  }

  /**
   * Whether a batch that arrives during a pause should try the service now instead of waiting: only when keeping it
   * would push the oldest kept spans out. A pause grows to 30 s while the service stays down, and a flapping service
   * is often back long before it ends: at a few hundred spans a second the bound fills in seconds, and every span
   * after that was dropped until the pause ended, the service up all along. At most one such probe at a time, none
   * within a second of the last failure (a service still down costs a refused connection a second at most), and none
   * while the service asked to wait (`Retry-After`).
   */
  private mayProbe(incoming: number): boolean {
    if (this.probing || this.pending.length + incoming <= this.maxRetrySpans) return false;
    const now = performance.now();
    return now >= this.heldUntil && now - this.lastFailureAt >= FIRST_PAUSE_MS;
  }

  /**
   * Sends `spans` alone (a single attempt: the transport does not retry while paused), leaving the backlog kept.
   * The service answered: the pause is over, and the backlog follows at once. It failed: `spans` are kept like any
   * failed batch, the oldest going past the bound as they would have, and the pause grows.
   */
  private probe(spans: ReadableSpan[]): void {
    this.probing = true;
    this.send(
      spans,
      () => {
        this.probing = false;
        if (!this.backendDown) void this.retryPending();
      },
      false,
    );
  }

  private send(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void, withBacklog = true): void {
    // Take the retry backlog now: concurrent exports (a flush sends batches in parallel) must not resend it twice.
    const batch = withBacklog && this.pending.length > 0 ? [...this.pending, ...spans] : spans;
    if (withBacklog) this.pending = [];
    // The backlog goes out in requests no larger than a batch: one request of everything kept could be refused
    // for its size (413, for good) and lose it all at once.
    const requests: Request[] = [];
    for (let start = 0; start < batch.length; start += this.maxBatchSize) {
      requests.push(this.request(batch.slice(start, start + this.maxBatchSize)));
    }
    if (requests.length === 0) requests.push(this.request([]));
    startOneATurn(requests);
    void Promise.all(requests.map((request) => request.settled)).then(() => resultCallback({ code: ExportResultCode.SUCCESS }));
  }

  /**
   * One request, counted as in flight from now on (the end of the process sends or counts its spans), sent once
   * `start` is called. `settled` resolves once it settled and was counted, or once weft stopped waiting for it.
   */
  private request(batch: ReadableSpan[]): Request {
    let done = () => {};
    const settled = new Promise<void>((resolve) => {
      done = resolve;
    });
    let finished = false;
    // A request is counted once: as it settles, or as dropped when the process ends first.
    const finish = (count: () => void) => {
      if (finished) return;
      finished = true;
      this.inFlight.delete(settled);
      count();
      done();
    };
    const settle = (result: ExportResult) =>
      finish(() => (result.code === ExportResultCode.SUCCESS ? this.onSuccess(batch) : this.onFailure(batch, result.error)));
    this.inFlight.set(settled, { batch, letGo: () => done(), finish });
    const start = () => {
      // Already counted (sent or dropped as the process ends): it must not go out too.
      if (finished) return;
      try {
        this.inner.export(batch, settle);
      } catch (error) {
        settle({ code: ExportResultCode.FAILED, error: error as Error });
      }
    };
    return { settled, start };
  }

  /**
   * The service's answer to the request now settling refused `count` of its spans (OTLP partial success). The
   * answer is read just before the request reports success, in the same turn, so they are set against that batch.
   */
  noteRejected(count: number): void {
    this.rejectedInAnswer += count;
  }

  private onSuccess(batch: ReadableSpan[]): void {
    // Refused spans are dropped, not exported: each span is counted once.
    const rejected = Math.min(this.rejectedInAnswer, batch.length);
    this.rejectedInAnswer = 0;
    this.stats.spansDropped += rejected;
    this.stats.spansExported += batch.length - rejected;
    this.pauseMs = 0;
    this.pausedUntil = 0;
    this.hanging = false;
    // The service took a request after asking to wait: what it held back may go again.
    this.heldUntil = 0;
  }

  /** Resolves once every export in flight now has settled and been counted. */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight.keys()]);
  }

  /** Whether spans wait for a retry or an export is in flight: an exit flush has something to do. */
  hasWork(): boolean {
    return this.pending.length > 0 || this.inFlight.size > 0;
  }

  /** How many spans wait for a retry. */
  get waiting(): number {
    return this.pending.length;
  }

  /**
   * Counts the spans waiting for a retry or in flight as dropped, and forgets them: the process is ending, so they
   * cannot be sent, or their answer cannot be waited for. A request that settles after all is not counted again.
   */
  dropUnsent(): void {
    this.stats.spansDropped += this.pending.length;
    this.pending = [];
    for (const request of [...this.inFlight.values()]) {
      request.finish(() => {
        this.stats.spansDropped += request.batch.length;
      });
    }
  }

  /**
   * Whether a last send, synchronous, as the process ends, may be made: not while the service is known to hang (a
   * request was given up on, at this exit's flush or lately, and none answered since: it would only hold the end of
   * the process for nothing), nor while it asked to wait (`Retry-After`). A service that merely failed gets it: a
   * refused connection or an error answer costs the last send little.
   */
  mayLastSend(): boolean {
    return !(this.hanging && this.backendDown) && performance.now() >= this.heldUntil;
  }

  /**
   * Sends every span not exported yet, `queued` (the batch processor's) first, then those waiting for a retry and
   * those of the requests in flight, through `send`, once, as the process ends: see {@link sendSynchronously}.
   * `send` returns how many spans the service refused (partial success), or undefined when nothing was sent. The
   * spans are counted as exported (or refused: dropped) when sent, and true returned; otherwise they stay for
   * {@link dropUnsent}.
   *
   * The requests in flight are sent again: their answer will never be read, so they may or may not have reached
   * the service. Sending them again risks a duplicate, which the trace service files under the same call (a
   * call's id is its span id); not sending them would lose them for certain, however close they were to done.
   */
  sendLast(queued: readonly ReadableSpan[], send: (spans: ReadableSpan[]) => number | undefined): boolean {
    const requests = [...this.inFlight.values()];
    const spans = [...queued, ...this.pending, ...requests.flatMap((request) => request.batch)];
    if (spans.length === 0) return false;
    const refused = send(spans);
    // Not sent: those of the batch processor are still counted as queued, and all are dropped with the rest.
    if (refused === undefined) return false;
    this.stats.spansQueued = Math.max(0, this.stats.spansQueued - queued.length);
    this.pending = [];
    for (const request of requests) request.finish(() => {});
    const dropped = Math.min(refused, spans.length);
    this.stats.spansDropped += dropped;
    this.stats.spansExported += spans.length - dropped;
    return true;
  }

  /**
   * Stops waiting for the exports in flight: the batch processor and every flush are told they are done, so that
   * their timers no longer keep the process alive at exit after weft gave up on a hanging backend. The spans are
   * still counted when the requests settle, if the process lives that long, or as dropped when it ends.
   */
  stopWaiting(): void {
    if (this.inFlight.size === 0) return;
    // A service that did not answer in time is treated as failing (and hanging): exports pause, and the next flush
    // does not wait on it again. The requests let go of still count as they settle, if the process lives on.
    this.failures += 1;
    this.hanging = true;
    if (!this.backendDown) this.pause();
    for (const request of this.inFlight.values()) request.letGo();
  }

  /**
   * Whether the service has failed since it last took a request: an export failed for a passing reason, or was given
   * up on. Requests then make a single attempt each: the pauses and the probes retry, and a request retried within
   * its export held the batch processor for up to its timeout (10 s by default) each time a pause ended, its queue
   * filling, and a service back between two attempts lost the spans that ended meanwhile.
   */
  get recovering(): boolean {
    return this.pauseMs > 0;
  }

  /**
   * Whether the service is known to be down: an export failed for a passing reason, or was given up on, and the
   * pause after it runs. Only an explicit flush (or a probe) sends then, a single attempt (see
   * {@link ResilientExporter.recovering}): a flush does not wait again, retry after retry, on a service that has just failed.
   */
  get backendDown(): boolean {
    return performance.now() < this.pausedUntil;
  }

  /** Exports pause after a failure: 1 s, doubling up to 30 s while the service keeps failing. */
  private pause(): void {
    this.pauseMs = Math.min(this.pauseMs === 0 ? FIRST_PAUSE_MS : this.pauseMs * 2, LONGEST_PAUSE_MS);
    this.pausedUntil = performance.now() + this.pauseMs;
  }

  private onFailure(batch: ReadableSpan[], error: unknown): void {
    this.stats.exportFailures += 1;
    this.failures += 1;
    this.lastFailureAt = performance.now();
    if ((error as { permanent?: unknown } | undefined)?.permanent === true) {
      this.stats.spansDropped += batch.length;
      reportOnce(
        `export-error ${this.target}`,
        `could not export spans to ${this.target} (${describe(error)}), and sending again would fail the same way; ${batch.length} dropped.`,
      );
      return;
    }
    if (isPermanent(error)) {
      this.stats.spansDropped += batch.length;
      reportOnce(
        `export-rejected ${this.target}`,
        `spans were refused by ${this.target} (${describe(error)}); ${batch.length} dropped.${this.refusedHint(statusOf(error))}`,
      );
      return;
    }
    this.keep(batch);
    this.hanging = (error as { timedOut?: unknown } | undefined)?.timedOut === true;
    this.pause();
    const asked = (error as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
    if (typeof asked === 'number' && asked > 0) {
      // The service said when to come back (429/503 with Retry-After, longer than the export could wait): the
      // spans are held, within the retry bound, until then, and not even a flush sends them sooner.
      this.heldUntil = this.lastFailureAt + Math.min(asked, LONGEST_RETRY_AFTER_MS);
      this.pausedUntil = Math.max(this.pausedUntil, this.heldUntil);
    }
    this.retryWhenPauseEnds();
    reportOnce(
      `export-failed ${this.target} ${failureKind(error)}`,
      `could not export spans to ${this.target} (${describe(error)}); keeping up to ${this.maxRetrySpans} for the next attempt.${this.hint}`,
    );
  }

  /**
   * Sends the spans kept for a retry once the pause after a failure is over. The batch processor exports only when
   * new spans end: an app gone quiet after the service failed (a burst, then idle) would otherwise hold them until
   * its next span or its shutdown, long after the service recovered. A failed retry pauses longer and comes back
   * here. The timer keeps no finished app alive, and goes with the shutdown.
   */
  private retryWhenPauseEnds(): void {
    if (this.retryTimer !== undefined || this.stopping !== undefined || this.pending.length === 0) return;
    this.retryTimer = setTimeout(
      () => {
        this.retryTimer = undefined;
        // A timer may fire a millisecond early by the wall clock: then it waits on, rather than trying a paused service.
        if (this.backendDown) this.retryWhenPauseEnds();
        else void this.retryPending();
      },
      Math.max(1, this.pausedUntil - performance.now()),
    );
    this.retryTimer.unref();
  }

  /** Keeps spans for the next attempt; past the bound, the oldest are dropped. */
  private keep(spans: ReadableSpan[]): void {
    const waiting = this.pending.length > 0 ? [...this.pending, ...spans] : spans;
    const overflow = Math.max(0, waiting.length - this.maxRetrySpans);
    this.pending = overflow > 0 ? waiting.slice(overflow) : waiting;
    if (overflow === 0) return;
    this.stats.spansDropped += overflow;
    reportOnce(
      `retry-overflow ${this.target}`,
      `${this.target} has been failing for longer than ${this.maxRetrySpans} spans can wait for a retry: the oldest are dropped, and counted in the stats' spansDropped. \`batch.maxRetrySpans\` keeps more, in memory.${this.hint}`,
    );
  }

  /**
   * A mark to give {@link retryPending}: failures after it (or weft giving up on the service) mean the backend has
   * just failed again.
   */
  failureMark(): number {
    return this.failures;
  }

  /**
   * Sends whatever waits for a retry, pause or not, unless it failed after the mark `notFailedSince` (a flush that
   * has just seen the backend fail does not wait for it a second time) or the service asked to wait longer. While
   * the service is known to hang (its last request got no answer in time, and the pause after it runs), only a
   * `last` attempt is made, before the end, when the spans could not wait for the next export: otherwise a flush
   * would wait on it again, until its timeout, for nothing.
   */
  async retryPending(notFailedSince = Number.POSITIVE_INFINITY, last = false): Promise<void> {
    if (this.pending.length === 0 || this.failures > notFailedSince || performance.now() < this.heldUntil) return;
    if (this.hanging && this.backendDown && !last) return;
    await new Promise<void>((resolve) => this.send([], () => resolve()));
  }

  async forceFlush(): Promise<void> {
    await this.inner.forceFlush?.();
  }

  /**
   * Waits for the exports in flight, gives the spans kept for a retry one last attempt (unless the backend failed
   * during this shutdown already, or asked to wait longer), and counts whatever is still unsent as dropped: after shutdown every span
   * that entered the pipeline is either exported or counted.
   */
  shutdown(): Promise<void> {
    // Called by the batch processor, and by weft's processor again when the batch processor's flush failed.
    this.stopping ??= this.stop();
    return this.stopping;
  }

  private async stop(): Promise<void> {
    clearTimeout(this.retryTimer);
    const since = this.failureMark();
    await this.settled();
    await this.retryPending(since, true);
    if (this.pending.length > 0) {
      reportOnce(
        `shutdown-dropped ${this.target}`,
        `${this.pending.length} span(s) kept for a retry could not be sent to ${this.target} before the shutdown; they are dropped.${this.hint}`,
      );
    }
    this.stats.spansDropped += this.pending.length;
    this.pending = [];
    // Left now are only the requests a flush gave up on: they are not waited for again (the OTLP exporter's own
    // shutdown would, until their timeout), but counted as dropped, and their connections closed.
    if (this.inFlight.size > 0) {
      this.dropUnsent();
      this.inner.closeConnections();
    }
    await this.inner.shutdown();
  }
}
