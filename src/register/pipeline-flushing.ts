import { kindOf, WeftConfigError } from '../config/index.js';
import { reportOnce } from '../diagnostics.js';
import { installExitHooks } from './exit-hooks.js';
import { gaveUpShuttingDown, failureReporter, reportFlushGivenUp, unsentSpans } from './flush-timeout.js';
import { settleWithin } from './settle-within.js';
import type { ExportPipeline } from './span-processor.js';

/** The `flushOnExit` option, checked: whether to hook the end of the process (true unless `false`). */
export function resolveFlushOnExit(value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'boolean') {
    throw new WeftConfigError('flushOnExit', undefined, `weft: option \`flushOnExit\` must be true or false, got ${kindOf(value)}.`);
  }
  return value;
}

/** How a pipeline's spans are flushed, and whether at the end of the process too. */
export interface FlushingOptions {
  /** The longest wait of a flush or a shutdown, in ms (`exitFlushTimeoutMillis`, resolved). */
  flushTimeout: number;
  /** Hook the end of the process (`flushOnExit`, resolved). */
  flushOnExit: boolean;
  /** Flushes what feeds the pipeline: register()'s whole provider, or the pipeline alone. */
  flushSpans(): Promise<void>;
}

/** The flushes of one export pipeline: what register()'s handle and weftSpanProcessor() both do. */
export interface PipelineFlushing {
  /**
   * Sends every ended span now, waiting at most the flush timeout; spans not sent by then are kept for the next
   * attempt, and the give-up said once. Never rejects.
   */
  forceFlush(): Promise<void>;
  /**
   * Runs `stop` (a shutdown that ends with the pipeline's), waiting at most the flush timeout: past it, the spans
   * not sent are counted as dropped and the connections closed. Then unhooks the end of the process. Idempotent:
   * the first call's `stop` is the one that runs.
   */
  shutdown(stop: () => Promise<void>): Promise<void>;
}

/**
 * Bounds the flushes of `exporting` by the flush timeout, and, unless `flushOnExit` is false, hooks the end of the
 * process (see {@link installExitHooks}) until {@link PipelineFlushing.shutdown} is done.
 */
export function pipelineFlushing(exporting: ExportPipeline, options: FlushingOptions): PipelineFlushing {
  const { flushTimeout, flushSpans } = options;
  // A pipeline that no span reached has nothing to flush at `beforeExit`.
  let lastFlushedAt = 0;
  // Every flush, explicit or at exit, waits at most the flush timeout. Past it, weft lets go of the requests it
  // waited for: their sockets and retry timers no longer hold the process, and their spans, if they fail, wait
  // for the next attempt (or are counted as dropped when the process ends).
  // At exit, spans kept for a retry get an attempt even from a service known to hang: they cannot wait for later.
  // But a connection that failed there is not tried again after a pause: what failed goes with the last send, at once.
  const flushWithin = async (atExit: boolean): Promise<boolean> => {
    lastFlushedAt = exporting.stats.spansEnded;
    const mark = exporting.failureMark();
    if (atExit) exporting.retryFailedConnections(false);
    try {
      const flushing = atExit ? flushSpans().then(() => exporting.lastAttempt(mark)) : flushSpans();
      const finished = await settleWithin(flushing, flushTimeout, failureReporter('flush'));
      if (!finished) exporting.releaseConnections();
      return finished;
    } finally {
      if (atExit) exporting.retryFailedConnections(true);
    }
  };
  // Spans still waiting for a retry after the last attempt at exit (the service asked to wait longer, or failed
  // again) end with the process: say how many, once. They are counted as dropped when it does end.
  const exitFlush = async () => {
    const finished = await flushWithin(true);
    const waiting = exporting.waitingSpans();
    if (finished && waiting > 0) {
      reportOnce(
        `exit-waiting ${exporting.endpoint}`,
        `${waiting} span(s) waiting for a retry could not be sent to ${exporting.endpoint} before exit and are dropped if the process ends now.`,
      );
    }
    return finished;
  };
  const giveUp = () => {
    reportOnce(
      `exit-timeout ${exporting.endpoint}`,
      `gave up sending spans to ${exporting.endpoint} at exit after ${flushTimeout} ms; ${unsentSpans(exporting)} span(s) were not sent.${exporting.hint}`,
    );
  };
  // When the process ends, every span not yet exported (queued, held for a retry, in flight) is sent synchronously,
  // waiting at most the flush timeout, unless the service is known to hang (weft gave up on it, and it has answered
  // nothing since) or asked to wait; what is not sent is counted as dropped, before an app's `exit` listener reads
  // the count.
  const endExport = (hurry: boolean, endingSince: number, pipelinesLeft = 1) => {
    // The pipelines hooked send one after the other, within one flush timeout from the start of the end, each within
    // its share of what is left: one that finishes early leaves the rest to those after it.
    const timeLeft = Math.floor((flushTimeout - (performance.now() - endingSince)) / Math.max(1, pipelinesLeft));
    if (hurry) {
      // The app's user asked twice: the process ends now, and says what that cost, as a flush given up on does.
      const unsent = unsentSpans(exporting);
      if (unsent > 0) {
        reportOnce(
          `exit-hurried ${exporting.endpoint}`,
          `a second signal ended the process while weft was sending spans to ${exporting.endpoint} at exit; ${unsent} span(s) were not sent.`,
        );
      }
    }
    try {
      // A process may not be allowed to start another (Node's permission model): the spans are then dropped, counted.
      if (!hurry && timeLeft > 0) exporting.lastSend(timeLeft);
    } catch (error) {
      failureReporter('last send')(error);
    }
    exporting.dropUnsent();
  };
  const unhookExit = options.flushOnExit
    ? installExitHooks({
        flush: exitFlush,
        hasNewSpans: () => exporting.stats.spansEnded !== lastFlushedAt || exporting.hasWork(),
        onGiveUp: giveUp,
        onEnd: endExport,
      })
    : () => {};

  let stopping: Promise<void> | undefined;
  return {
    forceFlush: async () => {
      if (!(await flushWithin(false))) reportFlushGivenUp(exporting, flushTimeout);
    },
    shutdown(stop) {
      stopping ??= (async () => {
        // The end of the pipeline, as the process's end is: a failed connection is not tried again after a pause.
        exporting.retryFailedConnections(false);
        try {
          // Bounded as a flush is, so that a service that is down or hanging does not hold the app's own shutdown.
          const finished = await settleWithin(stop(), flushTimeout, failureReporter('shutdown'));
          if (!finished) gaveUpShuttingDown(exporting, flushTimeout);
        } finally {
          // Only now: an app that exits while its shutdown() is under way (not awaited) still has what is left sent.
          unhookExit();
        }
      })();
      return stopping;
    },
  };
}
