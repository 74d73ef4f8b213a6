import type { Dispatcher } from 'undici';

type Undici = typeof import('undici');

// Where undici and Node's bundled fetch keep the process-wide dispatcher of `fetch()`.
const FETCH_DISPATCHER_KEYS = [Symbol.for('undici.globalDispatcher.1'), Symbol.for('undici.globalDispatcher.2')];
let loading: Promise<Undici> | undefined;

/**
 * undici, loaded on first use. Loading undici installs its own Agent as the dispatcher of `fetch()` for the whole
 * process when it finds none of its own version, which would move the app's `fetch()` (and the `openai` SDK on it)
 * onto weft's copy of undici merely because weft was imported. weft gives every request its own dispatcher, so
 * the process-wide ones are put back as they were.
 */
export function loadUndici(): Promise<Undici> {
  loading ??= (async () => {
    // Node's own fetch() installs its dispatcher when its bundled undici is first evaluated, which may not have
    // happened yet. Evaluate it now (any of its web classes does): otherwise the slot put back below would be
    // empty, and Node's fetch(), finding undici's slot already defined, would run with no dispatcher and fail.
    if (typeof Headers === 'function') new Headers();
    const shared = globalThis as Record<symbol, unknown>;
    const before = FETCH_DISPATCHER_KEYS.map((key) => shared[key]);
    const undici = await import('undici');
    FETCH_DISPATCHER_KEYS.forEach((key, i) => {
      if (shared[key] !== before[i]) shared[key] = before[i];
    });
    return undici;
  })();
  return loading;
}

/** A keep-alive undici Agent made on first use, so that constructing a client loads nothing. */
export class LazyAgent {
  private agent: Promise<Dispatcher> | undefined;

  get(): Promise<Dispatcher> {
    this.agent ??= loadUndici().then(({ Agent }) => new Agent());
    return this.agent;
  }

  async close(): Promise<void> {
    if (this.agent) await (await this.agent).close();
  }
}
