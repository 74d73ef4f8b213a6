import { endUnfinished } from '../tracing/unfinished.js';

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

// Marks weft's signal listeners, whichever copy or version of weft installed them: none is taken for the app's.
const WEFT_LISTENER = Symbol.for('weft.exit-hooks.listener');

/**
 * Whether the app handles `signal` itself: a listener other than weft's and signal-exit's. Asked when the signal
 * arrives, not when weft is registered, since apps usually add their handlers after `register()`.
 */
function appListens(signal: NodeJS.Signals): boolean {
  const weftListeners = process.listeners(signal).filter((listener) => WEFT_LISTENER in listener).length;
  return process.listenerCount(signal) - weftListeners - signalExitListeners() > 0;
}

/** What one export pipeline does as the process ends; see {@link installExitHooks}. */
export interface ExitFlush {
  /**
   * Flushes, bounded by the flush timeout; resolves `false` when it gave up, having let go of the requests it waited
   * for (their sockets and retry timers no longer hold the process).
   */
  flush(): Promise<boolean>;
  /** Whether spans ended, or wait to be sent, since the last flush. */
  hasNewSpans(): boolean;
  /** Says that a flush gave up. */
  onGiveUp(): void;
  /**
   * Runs, synchronously, once, as the process is certainly ending: sends what is left (see last-send.ts), unless
   * it cannot do so safely or is told to `hurry` (a second signal came during the flush), and counts the rest as
   * dropped. Nothing can be sent after it. `endingSince` (`performance.now()`) is when the end began: the sends
   * of every pipeline, one after the other, share one flush timeout from then, not one each. `pipelinesLeft` (this
   * one included; undefined from a copy of weft that does not say) is how many still have to send: each takes at most
   * its share of the time left, so that a service that hangs does not leave the pipelines after it none.
   */
  onEnd(hurry: boolean, endingSince: number, pipelinesLeft?: number): void;
}

/** A pipeline whose exit is hooked, with where its flush and its end stand. */
interface Hooked {
  readonly exit: ExitFlush;
  flushing: Promise<boolean> | undefined;
  ended: boolean;
}

/**
 * The process listeners weft installed, shared by every pipeline hooked while they are. Held weakly: a processor the
 * app let go of without `shutdown()` (one per request, per test) is not kept for the life of the process.
 */
interface ProcessHooks {
  readonly hooked: Set<WeakRef<Hooked>>;
  remove(): void;
}

// One set of listeners per process, shared by register() and every weftSpanProcessor(), and by the ESM and CommonJS
// copies of weft when both are loaded: two sets would each take the other's signal listener for the app's, and
// neither would raise the signal again. The key names the shape of `ProcessHooks` and `ExitFlush`: a copy of weft
// that changes either takes another key.
const HOOKS_KEY = Symbol.for('weft.exit-hooks.v1');
const holder = globalThis as { [HOOKS_KEY]?: ProcessHooks };
// Unhooks a pipeline whose processor was garbage-collected unshut.
const forgotten = new FinalizationRegistry<() => void>((unhook) => unhook());

/**
 * Flushes the pipeline's spans when the process is about to end, without changing how it ends. Every pipeline
 * hooked shares one set of process listeners, which act for all of them at once: flushes run side by side, the
 * signal is raised again once all are done.
 * - `beforeExit` (the event loop ran dry): flush those where spans ended since the last flush, at most a few times
 *   per process. If one gave up, the process ends as it was about to, with its exit code, at once unless the app
 *   has its own `beforeExit` work, which is never cut off.
 * - SIGTERM / SIGINT: flush, then, unless the app listens to the signal itself, raise it again so the process
 *   ends by the signal exactly as it would have without weft (a `signal-exit` listener does not count as the
 *   app's: it ends the process too once it is the only listener). A second signal during the flush ends it at once.
 *   When the app listens, it decides when the process ends: weft's flush holds it no longer than the timeout.
 * - An uncaught exception (or unhandled rejection) with no `uncaughtException` listener of the app's: the process
 *   dies as soon as the `uncaughtExceptionMonitor` listeners have run, so weft's, a monitor that changes nothing of
 *   how it ends (Node prints the app's error and exits 1 as without weft, other monitors run once), ends the calls
 *   still running and sends synchronously ({@link ExitFlush.onEnd}). With a listener of the app's, weft only
 *   flushes alongside.
 * - `process.exit()` called by the app, or the end after the `beforeExit` flush: nothing asynchronous runs after the
 *   `exit` event, so the calls still running are ended and what is left is sent synchronously.
 *
 * `onEnd` runs at the `exit` event, at an uncaught exception that ends the process, and just before weft raises a
 * signal again (a process killed by a signal has no `exit` event).
 *
 * The calls still traced (see tracing/unfinished.ts) have their spans ended, to be sent with the rest, before the
 * flush on the paths where weft ends the process, or where it would end anyway with nothing left to run (a signal
 * or an uncaught exception the app does not handle, `beforeExit` with no `beforeExit` work of the app's), and at the
 * `exit` event.
 *
 * @returns a function that unhooks the pipeline, and removes the listeners with the last one.
 */
export function installExitHooks(exit: ExitFlush): () => void {
  holder[HOOKS_KEY] ??= listen();
  const hooks = holder[HOOKS_KEY];
  const entry: Hooked = { exit, flushing: undefined, ended: false };
  const ref = new WeakRef(entry);
  hooks.hooked.add(ref);
  const unhook = () => {
    if (!hooks.hooked.delete(ref) || hooks.hooked.size > 0) return;
    hooks.remove();
    if (holder[HOOKS_KEY] === hooks) delete holder[HOOKS_KEY];
  };
  forgotten.register(entry, unhook, ref);
  const unhookPipeline = () => {
    forgotten.unregister(ref);
    unhook();
  };
  // `hooked` holds the entry weakly: the pipeline holds this function, and through it the entry, as long as it lives.
  return Object.assign(unhookPipeline, { entry });
}

/** Installs the process listeners, which act for every pipeline in `hooked` when the event comes. */
function listen(): ProcessHooks {
  const hooked = new Set<WeakRef<Hooked>>();
  /** The pipelines hooked and still alive. */
  const live = (): Hooked[] => {
    const entries: Hooked[] = [];
    for (const ref of hooked) {
      const entry = ref.deref();
      if (entry) entries.push(entry);
    }
    return entries;
  };
  const anyFlushing = () => live().some((entry) => entry.flushing !== undefined);
  // Once per pipeline: Node emits `exit` after a crash's monitors too, where weft has already ended.
  const end = (hurry: boolean) => {
    const endingSince = performance.now();
    const ending = live().filter((entry) => !entry.ended);
    for (const [index, entry] of ending.entries()) {
      entry.ended = true;
      entry.exit.onEnd(hurry, endingSince, ending.length - index);
    }
  };
  // Every path flushes through here and hears of a give-up: an app that handles the signal or the error itself
  // then ends when its own work is done, not when weft's requests and retries are.
  const flushOnce = (entry: Hooked): Promise<boolean> => {
    entry.flushing ??= entry.exit
      .flush()
      .then((finished) => {
        if (!finished) entry.exit.onGiveUp();
        return finished;
      })
      .finally(() => {
        entry.flushing = undefined;
      });
    return entry.flushing;
  };
  const flush = (entries: Iterable<Hooked>) => Promise.all([...entries].map(flushOnce));

  // An app whose own `beforeExit` handler ends a span would otherwise get a flush, then another `beforeExit`, then
  // another span, forever: without weft it would have exited after the first. A few rounds send what those
  // handlers record, then the process ends as it was about to.
  let exitFlushes = 0;
  const onBeforeExit = () => {
    if (anyFlushing() || exitFlushes >= MAX_EXIT_FLUSHES) return;
    // Counted now, while the app's listeners are all there: a `once` listener is gone by the time the flush ends.
    const appListens = process.listenerCount('beforeExit') > 1;
    // Nothing is left to run that could finish a call still traced: unless the app's own `beforeExit` work may.
    if (!appListens) endUnfinished('the process had nothing left to run');
    const due = live().filter((entry) => entry.exit.hasNewSpans());
    if (due.length === 0) return;
    exitFlushes += 1;
    // Past the timeout weft has let go of the hanging requests. The loop was empty when `beforeExit` came, so only
    // `beforeExit` listeners can have started work since: when weft's is the only one, the process ends now, with
    // its exit code, as it was about to (nothing of weft's would hold it, but a new `beforeExit` would come
    // first). When the app listens too, its work may still be running: weft never cuts it off, and the process
    // ends once that is done.
    void flush(due).then((finished) => {
      if (finished.includes(false) && !appListens) process.exit();
    });
  };

  const signalHandlers = new Map<NodeJS.Signals, () => void>();
  for (const signal of SIGNALS) {
    const handler = () => {
      if (appListens(signal)) {
        void flush(live());
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
      if (anyFlushing()) return reraise(true);
      endUnfinished(`the process received ${signal}`);
      void flush(live()).then(() => reraise(false));
    };
    Object.defineProperty(handler, WEFT_LISTENER, { value: true });
    signalHandlers.set(signal, handler);
    process.prependListener(signal, handler);
  }

  // A monitor, not an `uncaughtException` listener: one of those would make every error handled, and weft would
  // have to throw it again, from its own code, as a second crash (Node's header then pointing at weft, crash
  // reporters' monitors called twice).
  const onCrash = (_error: unknown, origin: string) => {
    if (process.listenerCount('uncaughtException') > 0 || process.hasUncaughtExceptionCaptureCallback()) {
      void flush(live());
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
  // weft still runs first, and is not counted.) Its monitor is not prepended: the `uncaughtException` listeners,
  // once ones included, are all still there while monitors run, and a crash reporter's added first runs first.
  process.on('uncaughtExceptionMonitor', onCrash);
  process.prependListener('beforeExit', onBeforeExit);
  // Prepended, so that what is left is sent and counted before any `exit` listener of the app's reads the counters,
  // or ends the process then and there with a `process.exit()` of its own.
  process.prependListener('exit', onExit);

  return {
    hooked,
    remove() {
      process.removeListener('exit', onExit);
      process.removeListener('beforeExit', onBeforeExit);
      process.removeListener('uncaughtExceptionMonitor', onCrash);
      for (const [signal, handler] of signalHandlers) process.removeListener(signal, handler);
    },
  };
}
