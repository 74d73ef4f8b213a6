import { callPlan, type OpOptions, traceFunction } from './op.js';
import { checkContentOptions } from './content-options.js';
import type { CallPlan } from './traced-call.js';

/** Options of {@link traced}: those of `op()`; the default name is `ClassName.method`. */
export type TracedOptions = OpOptions;

/**
 * A method decorator (TypeScript 5 standard decorators, not `experimentalDecorators`) that traces the method
 * like `op()`. The span is named `ClassName.method` after the class of `this` (or `options.name`).
 *
 * @example
 * class Model {
 *   @traced({ kind: 'llm' })
 *   async predict(question: string) { return ask(question); }
 * }
 */
export function traced(options?: TracedOptions) {
  checkContentOptions(options);
  // Generic over the whole method type, not its parts, so that generic methods (`m<T>(x: T): T`) decorate too. A
  // method's parameters are typed where it is declared, so `any` here lends it none; TypeScript's decorator context
  // asks for it.
  // biome-ignore lint/suspicious/noExplicitAny: ClassMethodDecoratorContext constrains the method to `...args: any`
  return function decorate<M extends (...args: any[]) => any>(method: M, decorator: ClassMethodDecoratorContext<ThisParameterType<M>, M>): M {
    const methodName = String(decorator.name);
    if (options?.name !== undefined) {
      const plan = callPlan(options.name, options);
      return traceFunction(method, options, () => plan);
    }
    // One plan per class, made on its first call (subclasses get their own name).
    const plans = new Map<string, CallPlan>();
    return traceFunction(method, options, (thisArg) => {
      const name = `${ownerName(thisArg, decorator.static)}.${methodName}`;
      let plan = plans.get(name);
      if (!plan) {
        plan = callPlan(name, options);
        plans.set(name, plan);
      }
      return plan;
    });
  };
}

function ownerName(thisArg: unknown, isStatic: boolean): string {
  try {
    const owner = isStatic ? thisArg : (thisArg as { constructor?: unknown } | undefined)?.constructor;
    const name = (owner as { name?: unknown } | undefined)?.name;
    return typeof name === 'string' && name !== '' ? name : 'anonymous';
  } catch {
    return 'anonymous';
  }
}
