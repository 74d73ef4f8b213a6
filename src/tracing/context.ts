import { type Attributes, type Context, createContextKey, propagation } from '@opentelemetry/api';
import { ATTR, customAttributes, recordableText, toAttributeValue } from './attributes.js';
import { reportTracingFailure } from './failures.js';
import { activeContext, withActiveContext } from './active-context.js';
import { kindOf, WeftConfigError } from '../config/index.js';
import { contentOptions } from './content-options.js';
import { oncePerLimit } from '../config/content.js';

/**
 * Values that describe where spans belong: a conversation thread, a user, a session, and metadata. Set with
 * {@link withContext} or {@link withThread}; every span started in scope carries them (also the chat spans of
 * the instrumentation, through `WeftContextSpanProcessor`, which `register()` installs).
 */
export interface WeftContext {
  /** The conversation thread (`wandb.thread_id`). */
  threadId?: string | undefined;
  /**
   * Mark the outermost spans in scope as turns of the thread (`wandb.is_turn`; the trace service then uses the
   * span's id as the turn id, and nested spans belong to that turn). Default: true when a `threadId` is given
   * in this scope; an inner scope without a `threadId` keeps the outer setting.
   */
  turn?: boolean | undefined;
  /** The end user (`user.id`, and `wandb.attributes.user_id`, the key the trace service shows on the call). */
  userId?: string | undefined;
  /** The user's session (`session.id`, and `wandb.attributes.session_id`, which the trace service shows). */
  sessionId?: string | undefined;
  /** Custom attributes of every span in scope (`wandb.attributes.<key>`), merged over an outer scope's. */
  metadata?: Record<string, unknown> | undefined;
  /** Tags of every span in scope (`wandb.attributes.tags`), added to an outer scope's. */
  tags?: string[] | undefined;
  /**
   * Also put `threadId`, `userId` and `sessionId` into W3C baggage, so that they travel with outgoing requests
   * to other services (which read them with `WeftContextSpanProcessor({ fromBaggage: true })`). Default: the
   * outer scope's setting, else false: baggage leaves the process, in plain HTTP headers. `false` in an inner
   * scope also takes these entries, an outer scope's or an upstream service's, out of the baggage it inherits.
   */
  baggage?: boolean | undefined;
}

/** A {@link WeftContext} with its span attributes worked out once, when the scope is entered. */
export interface ContextScope {
  readonly values: Readonly<WeftContext>;
  /** Set on every span started in scope (see {@link scopeAttributesWithin}). */
  readonly attributes: Attributes;
  /** The length `attributes` were made within: the tracing settings' attribute limit as the scope was entered. */
  readonly madeAt: number;
  /** Whether the outermost spans in scope are turns. */
  readonly turn: boolean;
}

const SCOPE_KEY = createContextKey('weft.context');

/** Names of the baggage entries written with `baggage: true`. */
export const BAGGAGE_KEYS = { threadId: ATTR.threadId, userId: ATTR.userId, sessionId: ATTR.sessionId } as const;

/** The scope in `ctx`, if any. */
export function scopeOf(ctx: Context): ContextScope | undefined {
  return ctx.getValue(SCOPE_KEY) as ContextScope | undefined;
}

/** Merges an inner scope's values over an outer one's. */
function merge(outer: Readonly<WeftContext> | undefined, inner: WeftContext): WeftContext {
  if (!outer) return { ...inner, turn: inner.turn ?? inner.threadId !== undefined };
  const threadChanged = inner.threadId !== undefined;
  return {
    threadId: inner.threadId ?? outer.threadId,
    turn: inner.turn ?? (threadChanged ? true : outer.turn),
    userId: inner.userId ?? outer.userId,
    sessionId: inner.sessionId ?? outer.sessionId,
    metadata: outer.metadata || inner.metadata ? { ...outer.metadata, ...inner.metadata } : undefined,
    tags: outer.tags || inner.tags ? [...new Set([...(outer.tags ?? []), ...(inner.tags ?? [])])] : undefined,
    baggage: inner.baggage ?? outer.baggage,
  };
}

/**
 * The attributes of `scope` for a span whose own attribute length limit is `limit` (a provider's `spanLimits`): made
 * again within it when it is tighter than the scope's, as the SDK would cut a longer value's JSON mid-way. Made once
 * per scope and limit.
 */
export function scopeAttributesWithin(scope: ContextScope, limit: number | undefined): Attributes {
  return limit === undefined || limit >= scope.madeAt ? scope.attributes : fittedScopeAttributes(scope, limit);
}

const fittedScopeAttributes = oncePerLimit((scope: ContextScope, limit) => scopeAttributes(scope.values, limit));

/** The attributes every span of a scope carries, each within `maxLength` characters. */
function scopeAttributes(values: Readonly<WeftContext>, maxLength: number): Attributes {
  const attributes: Attributes = customAttributes(values.metadata, maxLength);
  // Cut to the attribute limit like any recorded text: every span in scope would carry an outsized id.
  const set = (key: string, value: unknown) => {
    const converted = toAttributeValue(value, maxLength);
    if (converted !== undefined) attributes[key] = converted;
  };
  if (values.tags?.length) set(ATTR.tags, [...values.tags]);
  // One the service would read as JSON is left out; the scope keeps it, so no outer thread shows through.
  set(ATTR.threadId, values.threadId === undefined ? undefined : recordableText(values.threadId, 'thread id'));
  set(ATTR.userId, values.userId);
  set(ATTR.sessionId, values.sessionId);
  // Metadata of the same name, the app's own, wins.
  if (!(ATTR.customUserId in attributes)) set(ATTR.customUserId, values.userId);
  if (!(ATTR.customSessionId in attributes)) set(ATTR.customSessionId, values.sessionId);
  return attributes;
}

/**
 * A plain copy of the app's metadata: weft reads it once, here. Metadata it cannot read (a proxy that throws) is
 * left out, and said once; the app's code runs in its scope all the same.
 */
function readableMetadata(metadata: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (metadata === undefined) return undefined;
  try {
    return { ...metadata };
  } catch (error) {
    reportTracingFailure('withContext metadata', error);
    return undefined;
  }
}

function checkString(value: unknown, option: string): void {
  if (value !== undefined && (typeof value !== 'string' || value === '')) {
    // The value itself is not shown: an id of the app's user is not for a log line.
    const got = value === '' ? 'an empty string' : kindOf(value);
    throw new WeftConfigError(option, undefined, `weft: withContext() option \`${option}\` must be a non-empty string, got ${got}.`);
  }
}

/** The context with `values` entered over the active scope (and baggage, when asked). */
function contextWith(values: WeftContext, base: Context = activeContext()): Context {
  checkString(values.threadId, 'threadId');
  checkString(values.userId, 'userId');
  checkString(values.sessionId, 'sessionId');
  const merged = Object.freeze(merge(scopeOf(base)?.values, { ...values, metadata: readableMetadata(values.metadata) }));
  const madeAt = contentOptions().maxAttributeLength;
  const scope: ContextScope = { values: merged, attributes: scopeAttributes(merged, madeAt), madeAt, turn: merged.turn === true };
  let ctx = base.setValue(SCOPE_KEY, scope);
  if (merged.baggage) ctx = withBaggage(ctx, merged);
  // The outer scope's (or an upstream service's) entries are still in the baggage this scope inherits.
  else if (values.baggage === false) ctx = withoutBaggage(ctx);
  return ctx;
}

function withoutBaggage(ctx: Context): Context {
  const bag = propagation.getBaggage(ctx);
  if (!bag) return ctx;
  const rest = bag.removeEntries(...Object.values(BAGGAGE_KEYS));
  return rest.getAllEntries().length > 0 ? propagation.setBaggage(ctx, rest) : propagation.deleteBaggage(ctx);
}

function withBaggage(ctx: Context, values: Readonly<WeftContext>): Context {
  let bag = propagation.getBaggage(ctx) ?? propagation.createBaggage();
  for (const [field, key] of Object.entries(BAGGAGE_KEYS)) {
    const value = values[field as keyof typeof BAGGAGE_KEYS];
    if (value !== undefined) bag = bag.setEntry(key, { value });
  }
  return propagation.setBaggage(ctx, bag);
}

/**
 * Runs `fn` with thread, turn, user, session and metadata values in scope: every span started inside, in
 * async code too, carries them. Scopes nest: inner values win, metadata merges, tags add up. Returns what
 * `fn` returns.
 *
 * Attributes: `wandb.thread_id`, `wandb.is_turn` (outermost spans of a turn), `user.id` and `session.id` (also as
 * `wandb.attributes.user_id` and `.session_id`: the trace service reads only custom attributes of these),
 * `wandb.attributes.<key>` for metadata and `wandb.attributes.tags` for tags.
 *
 * @example
 * await withContext({ threadId: conversation.id, userId: user.id, metadata: { plan: 'pro' } }, () =>
 *   agent.reply(message),
 * );
 */
export function withContext<R>(values: WeftContext, fn: () => R): R {
  return withActiveContext(contextWith(values), fn);
}

/**
 * Runs `fn` in a conversation thread: every span inside carries `wandb.thread_id`, and the outermost spans are
 * marked as turns (`wandb.is_turn`), so that each top-level call is one turn of the thread.
 *
 * @example
 * for (const message of conversation) {
 *   await withThread(conversationId, () => chatbot(message)); // one turn per message
 * }
 */
export function withThread<R>(threadId: string, fn: () => R, options: Omit<WeftContext, 'threadId'> = {}): R {
  return withContext({ ...options, threadId }, fn);
}

/** The thread, user, session and metadata values in scope, or `undefined` outside any {@link withContext}. */
export function getWeftContext(): Readonly<WeftContext> | undefined {
  return scopeOf(activeContext())?.values;
}
