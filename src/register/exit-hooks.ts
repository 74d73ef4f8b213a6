import { reportOnce } from '../diagnostics.js';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** Resolves `true` when `work` settles, or `false` after `ms`, whichever is first; never rejects. */
function settleWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    work.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reportOnce('exit-flush', `flushing spans at exit failed: ${(error as Error)?.message ?? error}`);
        resolve(true);
      },
    );
  });
}

/**
 * How many listeners of `signal-exit` (v4 keeps its counter on globalThis, v3 on process) are installed: each
 * loaded copy adds one listener per signal and acts only when its own listeners are the only ones. They stand
 * for "end the process after running the exit handlers", not for an app that took the signal over.
 */
function signalExitListeners(): number {
  const v4 = (globalThis as Record<symbol, { count?: unknown } | undefined>)[Symbol.for('signal-exit emitter')]?.count;
  const v3 = (process as unknown as { __signal_exit_emitter__?: { count?: unknown } }).__signal_exit_emitter__?.count;
  return (typeof v4 === 'number' ? v4 : 0) + (typeof v3 === 'number' ? v3 : 0);
}

/**
 * Whether the app handles `signal` itself: a listener other than weft's and signal-exit's. Asked when the signal
 * arrives, not when weft is registered, since apps usually add their handlers after `register()`.
 */
function appListens(signal: NodeJS.Signals): boolean {
  return process.listenerCount(signal) - 1 - signalExitListeners() > 0;
}

/**
 * Flushes spans when the process is about to end, without changing how it ends:
 * - `beforeExit` (the event loop ran dry): flush if spans ended since the last flush. If the flush is still
 *   stuck on a hanging backend after `timeoutMs`, say so (`onGiveUp`) and exit as the process was about to, with
 *   its exit code.
 * - SIGTERM / SIGINT: flush, then, unless the app listens to the signal itself, raise it again so the process
 *   ends by the signal exactly as it would have without weft (a `signal-exit` listener does not count as the
 *   app's: it ends the process too once it is the only listener). A second signal during the flush ends it at once.
 * - An uncaught exception with no other handler: flush, then throw the same error again so that Node prints it
 *   and exits with its usual code. With other handlers present, weft only flushes alongside them.
 *
 * `process.exit()` called by the app cannot be waited for (its `exit` event is synchronous): spans still queued
 * then are lost, which is why the batch delay is short.
 *
 * @returns a function that removes the hooks.
 */
export function installExitHooks(
  flush: () => Promise<void>,
  hasNewSpans: () => boolean,
  timeoutMs: number,
  onGiveUp: () => void = () => {},
): () => void {
  let flushing: Promise<boolean> | undefined;
  const flushOnce = (): Promise<boolean> => {
    flushing ??= settleWithin(flush(), timeoutMs).finally(() => {
      flushing = undefined;
    });
    return flushing;
  };

  const onBeforeExit = () => {
    if (flushing || !hasNewSpans()) return;
    const guard = setTimeout(() => {
      onGiveUp();
      process.exit();
    }, timeoutMs);
    guard.unref();
    // Only a finished flush stands the guard down: after a timeout, the guard ends the process as it was about to.
    void flushOnce().then((finished) => {
      if (finished) clearTimeout(guard);
    });
  };

  const signalHandlers = new Map<NodeJS.Signals, () => void>();
  for (const signal of SIGNALS) {
    const handler = () => {
      if (appListens(signal)) {
        void flushOnce();
        return;
      }
      // Nobody but weft (and signal-exit, which steps aside while any other listener exists) keeps the process
      // alive: once weft's own listener is gone, the signal is raised again and ends the process as it would
      // have without weft, through signal-exit's exit handlers when it is loaded.
      const reraise = () => {
        process.removeListener(signal, handler);
        process.kill(process.pid, signal);
      };
      if (flushing) return reraise();
      void flushOnce().then(reraise);
    };
    signalHandlers.set(signal, handler);
    process.on(signal, handler);
  }

  const onUncaught = (error: unknown) => {
    if (process.listenerCount('uncaughtException') > 1) {
      void flushOnce();
      return;
    }
    process.removeListener('uncaughtException', onUncaught);
    void flushOnce().then(() =>
      setImmediate(() => {
        throw error;
      }),
    );
  };
  process.on('uncaughtException', onUncaught);
  process.on('beforeExit', onBeforeExit);

  return () => {
    process.removeListener('beforeExit', onBeforeExit);
    process.removeListener('uncaughtException', onUncaught);
    for (const [signal, handler] of signalHandlers) process.removeListener(signal, handler);
  };
}
