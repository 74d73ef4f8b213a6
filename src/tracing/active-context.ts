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
  /** `with()` for the synchronous part of `fn` alone, while no context is in use: see `WeftContextManager`. */
  withSynchronously?: ContextSource['with'];
}

// Keyed on globalThis so that the ESM and CommonJS copies of weft in one process use the same ones.
const OWN_KEY = Symbol.for('weft.tracing.context-manager');
const GLOBAL_KEY = Symbol.for('weft.tracing.global-context-manager');
const holder = globalThis as { [OWN_KEY]?: ContextSource; [GLOBAL_KEY]?: ContextSource };

/**
 * Gives weft's tracing its own context manager, for `register({ global: false })` when no global one is
 * registered: op() and withSpan() then still nest, and scopes still carry their values, without weft changing
 * anything global. `undefined` goes back to the global context API.
 *
 * @internal
 */
export function setWeftContextManager(manager: ContextSource | undefined): void {
  holder[OWN_KEY] = manager;
}

/**
 * Tells weft's tracing which manager register() made the global one (`undefined` when it is another's), so that
 * it can ask whether contexts are in use yet.
 *
 * @internal
 */
export function setGlobalWeftContextManager(manager: ContextSource | undefined): void {
  holder[GLOBAL_KEY] = manager;
}

/** The active context: weft's own manager's when it has one, else the global one's. */
export function activeContext(): Context {
  return (holder[OWN_KEY] ?? context).active();
}

/** Runs `fn` with `ctx` active, in weft's own manager when it has one, else through the global context API. */
export function withActiveContext<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
  ctx: Context,
  fn: F,
  thisArg?: ThisParameterType<F>,
  ...args: A
): ReturnType<F> {
  return (holder[OWN_KEY] ?? context).with(ctx, fn, thisArg, ...args);
}

/**
 * {@link withActiveContext} for a context that only code run by `fn` reads: under weft's own manager, while no
 * context is in use, it is active for the synchronous part of `fn` alone, which keeps Node's async hooks off
 * (see `WeftContextManager`). Under another party's manager, the same as {@link withActiveContext}.
 */
export function withActiveContextLazily<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
  ctx: Context,
  fn: F,
  thisArg?: ThisParameterType<F>,
  ...args: A
): ReturnType<F> {
  const manager = holder[OWN_KEY] ?? holder[GLOBAL_KEY];
  if (manager?.withSynchronously) return manager.withSynchronously(ctx, fn, thisArg, ...args);
  return withActiveContext(ctx, fn, thisArg, ...args);
}
