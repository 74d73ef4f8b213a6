import type { Attributes } from '@opentelemetry/api';
import { ATTR, customAttributes, recordableText } from './attributes.js';
import { type ParameterList, parameterList } from './parameter-names.js';
import { type ContentOptions, checkContentOptions, contentOptions } from './content-options.js';
import { type CallPlan, runTraced } from './traced-call.js';
import { DEFAULT_MAX_YIELDS, traceAsyncGenerator, traceGenerator, type YieldOptions } from './traced-iterators.js';
import { activeContext } from './active-context.js';
import { isPlainObject } from '../is-plain-object.js';
import { describeValue, kindOf, WeftConfigError } from '../config/index.js';

/** Options shared by {@link op}, `withSpan()` and `@traced()`. */
export interface TraceOptions extends ContentOptions {
  /** Name shown instead of the op name (`wandb.display_name`). */
  displayName?: string | undefined;
  /** The call's kind (`weave.span.kind`): e.g. `agent`, `tool`, `llm`, `retriever`, `evaluation`. */
  kind?: string | undefined;
  /** Custom attributes of every call (`wandb.attributes.<key>`); objects are recorded as JSON text. */
  attributes?: Record<string, unknown> | undefined;
}

/** Options of {@link op}. */
export interface OpOptions extends TraceOptions {
  /** The span name (the call's op name). Default: the function's name, else `anonymous`. */
  name?: string | undefined;
  /**
   * For generator functions: how many yielded values to keep as the output. Default 100; the rest are counted. A
   * generator that yields only strings (an answer streamed piece by piece) has their whole text as its output instead,
   * unless `joinStrings` is false.
   */
  maxYields?: number | undefined;
  /**
   * For generator functions that yield only strings: record them joined, as the text they make (default true), or,
   * with false, as the list of values (file names, lines, ids), as any other generator's.
   */
  joinStrings?: boolean | undefined;
}

/**
 * Any function op() can wrap (the `this` type is whatever the function declares): op() returns the same type, so
 * its callers see the wrapped function's own parameters and result. Its parameters are `never`, not `any`: every
 * function is one, and a function written inside `op(...)` without parameter types gets no `any` from it, so
 * `noImplicitAny` code keeps its checks (an untyped parameter is `never`, which nothing can be done with).
 *
 * @example
 * function traceAll<F extends AnyFunction>(fn: F): F {
 *   return op(fn);
 * }
 */
export type AnyFunction = (...args: never[]) => unknown;

type Shape = 'plain' | 'generator' | 'async-generator';

/** What op() remembers about a wrapped function, so that wrapping an op again keeps its kind. */
interface OpInfo {
  readonly shape: Shape;
  /** The function the op calls: an op given to op() again (to rename it, say) wraps this, not the op. */
  readonly original: AnyFunction;
  /** The op's options, which an op made of it again keeps under its own (`captureContent: false` stays). */
  readonly options: OpOptions | undefined;
}
const OP_INFO = Symbol.for('weft.op');

/** True when `fn` was made by {@link op} (or `@traced()`). */
export function isOp(fn: unknown): boolean {
  return typeof fn === 'function' && OP_INFO in fn;
}

function shapeOf(fn: Function): Shape {
  const info = (fn as { [OP_INFO]?: OpInfo })[OP_INFO];
  if (info) return info.shape;
  const tag = Object.prototype.toString.call(fn);
  if (tag === '[object GeneratorFunction]') return 'generator';
  if (tag === '[object AsyncGeneratorFunction]') return 'async-generator';
  return 'plain';
}

/** The generator options of an op, checked: a bad one is said as the op is made, not at its first call. */
function yieldOptions(options: OpOptions | undefined): YieldOptions {
  const max = options?.maxYields ?? DEFAULT_MAX_YIELDS;
  if (!Number.isInteger(max) || max < 0) {
    throw new WeftConfigError('maxYields', undefined, `weft: option \`maxYields\` must be a whole number of values (0 or more), got ${describeValue(max)}.`);
  }
  const joinStrings = options?.joinStrings ?? true;
  if (typeof joinStrings !== 'boolean') {
    throw new WeftConfigError('joinStrings', undefined, `weft: option \`joinStrings\` must be true or false, got ${kindOf(joinStrings)}.`);
  }
  return { max, joinStrings };
}

/** The span plan of an op or block: its name and the attributes every call shares. */
export function callPlan(name: string, options: TraceOptions | undefined): CallPlan {
  checkContentOptions(options);
  const given = options?.attributes ? { ...options.attributes } : undefined;
  // Within the op's own maxAttributeLength too, as its inputs and output are (the span's limit is known at each call).
  const madeAt = Math.min(options?.maxAttributeLength ?? Number.POSITIVE_INFINITY, contentOptions().maxAttributeLength);
  const attributes: Attributes = customAttributes(given, madeAt);
  if (options?.kind) attributes[ATTR.kind] = options.kind;
  const displayName = recordableDisplayName(options?.displayName);
  if (displayName !== undefined) attributes[ATTR.displayName] = displayName;
  const content =
    options && (options.captureContent !== undefined || options.redactContent || options.maxAttributeLength !== undefined)
      ? {
          captureContent: options.captureContent,
          redactContent: options.redactContent,
          maxAttributeLength: options.maxAttributeLength,
        }
      : undefined;
  return { name, attributes, content, custom: given ? { record: given, madeAt } : undefined };
}

/** The display name to record, if any: `''` and `null` are none, as an unset option (see {@link recordableText}). */
function recordableDisplayName(name: unknown): string | undefined {
  if (name === undefined || name === null || name === '') return undefined;
  if (typeof name !== 'string') {
    throw new WeftConfigError('displayName', undefined, `weft: option \`displayName\` must be a string, got ${kindOf(name)}.`);
  }
  return recordableText(name, 'display name');
}

/**
 * `{ question: 'hi', k: 3 }` from the parameter names and the arguments; unnamed ones become `argN`. The one
 * argument of a function whose one parameter is an object pattern (`({ city }) => …`, a tool) is the inputs itself,
 * `{ city: 'Paris' }`. Arguments past the parameters a function declares are left out: it never named them, and a
 * caller's extras can be large (openai's `runTools()` hands each tool its whole runner).
 */
function namedArguments(params: ParameterList, args: readonly unknown[]): Record<string, unknown> {
  // A copy: a redactContent hook may rewrite the inputs it is given, never the app's own argument.
  if (params.soleObjectPattern && isPlainObject(args[0])) return Object.assign({}, args[0]);
  const named: Record<string, unknown> = {};
  const count = params.known && params.restIndex === -1 ? Math.min(args.length, params.names.length) : args.length;
  for (let i = 0; i < count; i++) {
    const key = params.names[i] ?? `arg${i}`;
    if (i === params.restIndex) {
      named[key] = args.slice(i);
      break;
    }
    named[key] = args[i];
  }
  return named;
}

/**
 * Makes a traced function: the same call, the same `this`, the same result, plus one span per call.
 * Used by {@link op} and `@traced()`; `planFor` lets the decorator name the span after the class of `this`.
 */
export function traceFunction<F extends AnyFunction>(
  op: F,
  options: OpOptions | undefined,
  planFor: (thisArg: unknown) => CallPlan,
): F {
  // An op wrapped again traces what it calls, once: one span, with that function's parameter names.
  const fn = (op as { [OP_INFO]?: OpInfo })[OP_INFO]?.original ?? op;
  const shape = shapeOf(fn);
  const params = parameterList(fn);
  const yields = yieldOptions(options);

  const traced = function (this: unknown, ...args: unknown[]): unknown {
    // A constructor call is passed straight through: a span per `new` is not what op() is for. `new op(Foo)()`
    // builds a Foo, as `new Foo()` does; a subclass of the op builds itself.
    if (new.target) return Reflect.construct(fn, args, new.target === traced ? fn : new.target);
    const plan = planFor(this);
    const inputs = () => namedArguments(params, args);
    if (shape === 'plain') return runTraced(plan, inputs, fn, this, args);
    const parent = activeContext();
    const inner = Reflect.apply(fn, this, args);
    return shape === 'generator'
      ? traceGenerator(inner, plan, parent, inputs, yields)
      : traceAsyncGenerator(inner, plan, parent, inputs, yields);
  };
  keepOwnProperties(traced, op);
  Object.defineProperty(traced, OP_INFO, { value: { shape, original: fn, options } satisfies OpInfo });
  return traced as unknown as F;
}

/**
 * Gives the op what its function carries (`name`, `length`, a tool's `description` or schema, a class's statics and
 * prototype): op() returns the function's own type, and code reads these off it (a framework counting `length`).
 */
function keepOwnProperties(traced: Function, fn: Function): void {
  for (const key of Reflect.ownKeys(fn)) {
    if (key === OP_INFO || key === 'arguments' || key === 'caller') continue;
    const descriptor = Object.getOwnPropertyDescriptor(fn, key);
    if (!descriptor) continue;
    try {
      Object.defineProperty(traced, key, key === 'name' || key === 'length' ? { ...descriptor, configurable: true } : descriptor);
    } catch {
      // A property the wrapper cannot take (none of a plain function's): the op goes without it.
    }
  }
}

/**
 * Traces a function. Each call makes one span, named after the function (or `options.name`), nested under the
 * current span, with the arguments as the call's inputs (named by parameter, e.g. `{ question, k }`, else
 * `arg0`, `arg1`, …) and the return value as its output. Async functions are traced until their promise settles;
 * generators and async generators over their whole iteration, with the yielded values as the output. An error is
 * recorded (ERROR status with its message, and an `exception` event) and rethrown as the same instance; a thrown
 * object that is not an Error is recorded as its JSON, with credential fields redacted.
 * `this`, the return value and the TypeScript signature are unchanged.
 *
 * Parameter names are read once, from the function's source; minified code shows its minified names. A call
 * without arguments records no inputs, and `undefined` or `null` results record no output. The trace service
 * hides falsy outputs, so `false`, `0` and `''` are recorded as the text `false`, `0` and `""`.
 *
 * A generator's span starts at its first `next()` and ends when it is done, closed early (`return()`, as a
 * `break` out of `for…of` does) or throws. A generator left half-way, never finished nor closed, leaves its
 * span open until the process ends, when register()'s exit hooks (or `shutdown()`) end it as unfinished.
 *
 * @example
 * import { op } from 'weft';
 *
 * const predict = op(async function predict(question: string) {
 *   const res = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: question }] });
 *   return res.choices[0]?.message.content ?? '';
 * });
 * await predict('What is 2 + 2?'); // span "predict", inputs { question }, output "4", with the chat span inside
 */
export function op<F extends AnyFunction>(fn: F, options?: OpOptions): F {
  if (typeof fn !== 'function') throw new TypeError('weft: op() expects a function.');
  if (isOp(fn) && options === undefined) return fn;
  // An op made again keeps the first one's options under the new ones: renamed, it still records what it did.
  const earlier = (fn as { [OP_INFO]?: OpInfo })[OP_INFO]?.options;
  // (An option given as `undefined` is not given: the earlier one stands.)
  const merged = earlier ? { ...earlier, ...definedOnly(options) } : options;
  const plan = callPlan(merged?.name ?? (fn.name || 'anonymous'), merged);
  return traceFunction(fn, merged, () => plan);
}

function definedOnly(options: OpOptions | undefined): OpOptions {
  return Object.fromEntries(Object.entries(options ?? {}).filter(([, value]) => value !== undefined)) as OpOptions;
}
