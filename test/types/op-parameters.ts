/**
 * op() keeps a wrapped function's checks under `strict`: a parameter written without a type inside `op(...)` gets
 * no `any` from op's signature (it is `never`, which nothing can be done with), and a parameter typed by its default
 * keeps that type. Each `@ts-expect-error` below fails the type check if the line compiles.
 *
 * Compiled by test/types/tsconfig.json against dist/ (`npm run typecheck`).
 */
import { type AnyFunction, op, traced } from 'weft';

// @ts-expect-error an untyped parameter is not `any`: using it is an error, as noImplicitAny would have it
op((x) => x.foo.bar);

const withDefault = op(function withDefault(question: string, k = 3) {
  return `${question}${k}`;
});
withDefault('a', 2);
// @ts-expect-error `k` is a number, from its default
withDefault('a', 'not a number');

// Overloads, generators, `this` and rest parameters keep their types.
function pick(value: string): string;
function pick(value: number): number;
function pick(value: unknown) {
  return value;
}
const picked: string = op(pick)('s');
const counted: number = op((...items: string[]) => items.length)('a', 'b');
const numbers: Generator<number> = op(function* count(n: number) {
  yield n;
})(1);
const method = op(function (this: { base: number }, y: number) {
  return this.base + y;
});
const sum: number = method.call({ base: 1 }, 2);

// AnyFunction constrains an app's own helpers over op().
function traceAll<F extends AnyFunction>(fn: F): F {
  return op(fn);
}
const again: (q: string) => number = traceAll((q: string) => q.length);

class Agent {
  @traced()
  async answer(question: string): Promise<string> {
    return question;
  }
}
const answered: Promise<string> = new Agent().answer('q');

export { again, answered, counted, numbers, picked, sum };
