import type { Context } from '@opentelemetry/api';
import { type ActiveCall, type CallPlan, fail, startCall, succeed } from './traced-call.js';
import { withActiveContext } from './active-context.js';
import { MARK } from '../marks.js';

/** Default number of yielded values kept as a generator's output. */
export const DEFAULT_MAX_YIELDS = 100;

// Iterator helpers (`.map`, `.toArray` on Node 22) live on these prototypes; the wrappers inherit them so that a
// traced generator offers everything an untraced one does.
const ITERATOR_PROTOTYPE: object = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));
const ASYNC_ITERATOR_PROTOTYPE: object = Object.getPrototypeOf(Object.getPrototypeOf(async function* () {}.prototype));

type Method = 'next' | 'return' | 'throw';

/** Most characters of a generator's yielded text kept for its output; far past any span attribute's length. */
const MAX_TEXT_LENGTH = 1_000_000;

/** How a generator's yielded values become its output: at most `max` of them, or, all strings, joined. */
export interface YieldOptions {
  readonly max: number;
  readonly joinStrings: boolean;
}

/**
 * Collects yielded values up to a bound, counting the rest, and turns them into the call's output: the values, or,
 * when every one was a string (an answer streamed piece by piece), the text they make together, as a reader of the
 * call wants to see it.
 */
class Yields {
  private readonly items: unknown[] = [];
  private count = 0;
  private readonly max: number;
  // The text of the values so far, while all are strings; undefined from the first value that is not.
  private text: string | undefined;
  private textLength = 0;
  constructor(options: YieldOptions) {
    this.max = options.max;
    this.text = options.joinStrings ? '' : undefined;
  }
  add(value: unknown): void {
    if (this.count++ < this.max) this.items.push(value);
    if (this.text === undefined) return;
    if (typeof value !== 'string') {
      this.text = undefined;
      return;
    }
    if (this.textLength < MAX_TEXT_LENGTH) this.text += value.slice(0, MAX_TEXT_LENGTH - this.textLength);
    this.textLength += value.length;
  }
  output(): unknown {
    if (this.text !== undefined && this.count > 0) {
      const cut = this.textLength - this.text.length;
      return cut > 0 ? `${this.text}${MARK.cutString(cut)}` : this.text;
    }
    const dropped = this.count - this.items.length;
    return dropped > 0 ? [...this.items, MARK.moreItems(dropped)] : this.items;
  }
}

/**
 * One span over a whole (sync) generator: it starts at the first `next()` (as the generator's body does), under
 * the context in which the generator function was called; every step runs with the span active, so spans made in
 * the body nest under it; it ends when the generator is done, returns early, or throws. The output is the yielded
 * values (the first `maxYields`, then a count), or their text when all are strings. Results of every step are passed
 * through unchanged.
 */
export function traceGenerator<T, R, N>(
  inner: Generator<T, R, N>,
  plan: CallPlan,
  parent: Context,
  inputs: () => Record<string, unknown>,
  yieldOptions: YieldOptions,
): Generator<T, R, N> {
  let call: ActiveCall | undefined;
  let state: 'new' | 'running' | 'ended' = 'new';
  const yields = new Yields(yieldOptions);

  const step = (method: Method, arg: unknown): IteratorResult<T, R> => {
    if (state === 'new') {
      // Closing a generator that never ran runs none of its body: no call to record.
      call = method === 'next' ? startCall(plan, parent, inputs) : undefined;
      state = call ? 'running' : 'ended';
    }
    const run = () => (inner[method] as (a: unknown) => IteratorResult<T, R>).call(inner, arg);
    if (state === 'ended' || !call) return run();
    const active = call;
    let result: IteratorResult<T, R>;
    try {
      result = withActiveContext(active.context, run);
    } catch (error) {
      state = 'ended';
      fail(active, error);
      throw error;
    }
    if (result.done) {
      state = 'ended';
      succeed(active, yields.output());
    } else yields.add(result.value);
    return result;
  };

  const wrapper = Object.create(ITERATOR_PROTOTYPE) as Generator<T, R, N>;
  wrapper.next = (...args: [] | [N]) => step('next', args[0]);
  wrapper.return = (value: R) => step('return', value);
  wrapper.throw = (error: unknown) => step('throw', error);
  return wrapper;
}

/** The async counterpart of {@link traceGenerator}: the span covers the whole iteration of an async generator. */
export function traceAsyncGenerator<T, R, N>(
  inner: AsyncGenerator<T, R, N>,
  plan: CallPlan,
  parent: Context,
  inputs: () => Record<string, unknown>,
  yieldOptions: YieldOptions,
): AsyncGenerator<T, R, N> {
  let call: ActiveCall | undefined;
  let state: 'new' | 'running' | 'ended' = 'new';
  const yields = new Yields(yieldOptions);

  const step = (method: Method, arg: unknown): Promise<IteratorResult<T, R>> => {
    if (state === 'new') {
      // Closing a generator that never ran runs none of its body: no call to record.
      call = method === 'next' ? startCall(plan, parent, inputs) : undefined;
      state = call ? 'running' : 'ended';
    }
    const run = () => (inner[method] as (a: unknown) => Promise<IteratorResult<T, R>>).call(inner, arg);
    if (state === 'ended' || !call) return run();
    const active = call;
    return withActiveContext(active.context, run).then(
      (result) => {
        if (state !== 'ended') {
          if (result.done) {
            state = 'ended';
            succeed(active, yields.output());
          } else yields.add(result.value);
        }
        return result;
      },
      (error: unknown) => {
        if (state !== 'ended') {
          state = 'ended';
          fail(active, error);
        }
        throw error;
      },
    );
  };

  const wrapper = Object.create(ASYNC_ITERATOR_PROTOTYPE) as AsyncGenerator<T, R, N>;
  wrapper.next = (...args: [] | [N]) => step('next', args[0]);
  wrapper.return = (value: R | PromiseLike<R>) => step('return', value);
  wrapper.throw = (error: unknown) => step('throw', error);
  return wrapper;
}
