const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** Most flushes weft starts from `beforeExit` events in one process. */
const MAX_EXIT_FLUSHES = 3;

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
 * Flushes spans when the process is about to end, without changing how it ends. `flush` is bounded by the flush
 * timeout and resolves `false` when it gave up: it has then let go of the requests it waited for (their sockets and
 * retry timers no longer hold the process), and `onGiveUp` says so.
 * - `beforeExit` (the event loop ran dry): flush if spans ended since the last flush, at most a few times per
 *   process. If it gave up, the process ends as it was about to, with its exit code, at once unless the app has its
 *   own `beforeExit` work, which is never cut off.
 * - SIGTERM / SIGINT: flush, then, unless the app listens to the signal itself, raise it again so the process
 *   ends by the signal exactly as it would have without weft (a `signal-exit` listener does not count as the
 *   app's: it ends the process too once it is the only listener). A second signal during the flush ends it at once.
 *   When the app listens, it decides when the process ends: weft's flush holds it no longer than the timeout.
 * - An uncaught exception (or unhandled rejection) with no `uncaughtException` listener of the app's: the process
 *   dies as soon as the `uncaughtExceptionMonitor` listeners have run, so weft's, a monitor that changes nothing of
 *   how it ends (Node prints the app's error and exits 1 as without weft, other monitors run once), ends the calls
 *   still running and sends synchronously (`onEnd`). With a listener of the app's, weft only flushes alongside.
 * - `process.exit()` called by the app, or the end after the `beforeExit` flush: nothing asynchronous runs after the
 *   `exit` event, so the calls still running are ended and what is left is sent synchronously (`onEnd`).
 *
 * `onEnd` runs, synchronously, once, as the process is certainly ending: at its `exit` event, at an uncaught
 * exception that ends it, and just before weft raises a signal again (a process killed by a signal has no `exit`
 * event). It sends what is left in a child process it waits for (see last-send.ts), unless it cannot do so safely or
 * is told to `hurry` (a second signal came during the flush), and counts the rest as dropped. Nothing can be sent
 * after it.
 *
 * `endUnfinished` runs before the flush on the paths where weft ends the process, or where it would end anyway
 * with nothing left to run (a signal or an uncaught exception the app does not handle, `beforeExit` with no
 * `beforeExit` work of the app's), and at the `exit` event: the calls still traced then have their spans ended, and
 * sent with the rest.
 *
 * @returns a function that removes the hooks.
 */
export function installExitHooks(
  flush: () => Promise<boolean>,
  hasNewSpans: () => boolean,
  onGiveUp: () => void,
  onEnd: (hurry: boolean) => void,
  endUnfinished: (why: string) => void,
): () => void {
  let flushing: Promise<boolean> | undefined;
  // Once per process: Node emits `exit` after a crash's monitors too, where weft has already ended.
  let ended = false;
  const end = (hurry: boolean) => {
    if (ended) return;
    ended = true;
    onEnd(hurry);
  };
  // Every path flushes through here and hears of a give-up: an app that handles the signal or the error itself
  // then ends when its own work is done, not when weft's requests and retries are.
  const flushOnce = (): Promise<boolean> => {
    flushing ??= flush()
      .then((finished) => {
        if (!finished) onGiveUp();
        return finished;
      })
      .finally(() => {
        flushing = undefined;
      });
    return flushing;
  };

  // An app whose own `beforeExit` handler ends a span would otherwise get a flush, then another `beforeExit`, then
  // another span, forever: without weft it would have exited after the first. A few rounds send what those
  // handlers record, then the process ends as it was about to.
  let exitFlushes = 0;
  const onBeforeExit = () => {
    if (flushing || exitFlushes >= MAX_EXIT_FLUSHES) return;
    // Counted now, while the app's listeners are all there: a `once` listener is gone by the time the flush ends.
    const appListens = process.listenerCount('beforeExit') > 1;
    // Nothing is left to run that could finish a call still traced: unless the app's own `beforeExit` work may.
    if (!appListens) endUnfinished('the process had nothing left to run');
    if (!hasNewSpans()) return;
    exitFlushes += 1;
    // Past the timeout weft has let go of the hanging requests. The loop was empty when `beforeExit` came, so only
    // `beforeExit` listeners can have started work since: when weft's is the only one, the process ends now, with
    // its exit code, as it was about to (nothing of weft's would hold it, but a new `beforeExit` would come
    // first). When the app listens too, its work may still be running: weft never cuts it off, and the process
    // ends once that is done.
    void flushOnce().then((finished) => {
      if (!finished && !appListens) process.exit();
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
      const reraise = (hurry: boolean) => {
        process.removeListener(signal, handler);
        end(hurry);
        process.kill(process.pid, signal);
      };
      // A second signal during the flush asks for the end now: nothing more is sent.
      if (flushing) return reraise(true);
      endUnfinished(`the process received ${signal}`);
      void flushOnce().then(() => reraise(false));
    };
    signalHandlers.set(signal, handler);
    process.prependListener(signal, handler);
  }

  // A monitor, not an `uncaughtException` listener: one of those would make every error handled, and weft would
  // have to throw it again, from its own code, as a second crash (Node's header then pointing at weft, crash
  // reporters' monitors called twice).
  const onCrash = (_error: unknown, origin: string) => {
    if (process.listenerCount('uncaughtException') > 0 || process.hasUncaughtExceptionCaptureCallback()) {
      void flushOnce();
      return;
    }
    // The process dies once the monitors have run: nothing asynchronous will.
    endUnfinished(`the process crashed on ${origin === 'unhandledRejection' ? 'an unhandled rejection' : 'an uncaught exception'}`);
    end(false);
  };
  const onExit = () => {
    endUnfinished('the process exited');
    end(false);
  };
  // Whether the app handles an event is asked as it comes: weft's `beforeExit` listener goes first, since a `once`
  // listener that ran before it would no longer be counted. (One the app prepends with `prependOnceListener` after
  // register() still runs first, and is not counted.) Its monitor is not prepended: the `uncaughtException` listeners,
  // once ones included, are all still there while monitors run, and a crash reporter's added first runs first.
  process.on('uncaughtExceptionMonitor', onCrash);
  process.prependListener('beforeExit', onBeforeExit);
  // Prepended, so that what is left is sent and counted before any `exit` listener of the app's reads the counters,
  // or ends the process then and there with a `process.exit()` of its own.
  process.prependListener('exit', onExit);

  return () => {
    process.removeListener('exit', onExit);
    process.removeListener('beforeExit', onBeforeExit);
    process.removeListener('uncaughtExceptionMonitor', onCrash);
    for (const [signal, handler] of signalHandlers) process.removeListener(signal, handler);
  };
}
