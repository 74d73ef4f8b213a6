import { type Context, context } from '@opentelemetry/api';

/** The part of a context manager weft's tracing needs. */
export interface ContextSource {
  active(): Context;
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F>;
}

// Keyed on globalThis so that the ESM and CommonJS copies of weft in one process use the same one.
const KEY = Symbol.for('weft.tracing.context-manager');
const holder = globalThis as { [KEY]?: ContextSource };

/**
 * Gives weft's tracing its own context manager, for `register({ global: false })` when no global one is
 * registered: op() and withSpan() then still nest, and scopes still carry their values, without weft changing
 * anything global. `undefined` goes back to the global context API.
 *
 * @internal
 */
export function setWeftContextManager(manager: ContextSource | undefined): void {
  holder[KEY] = manager;
}

/** The active context: weft's own manager's when it has one, else the global one's. */
export function activeContext(): Context {
  return (holder[KEY] ?? context).active();
}

/** Runs `fn` with `ctx` active, in weft's own manager when it has one, else through the global context API. */
export function withActiveContext<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
  ctx: Context,
  fn: F,
  thisArg?: ThisParameterType<F>,
  ...args: A
): ReturnType<F> {
  return (holder[KEY] ?? context).with(ctx, fn, thisArg, ...args);
}
