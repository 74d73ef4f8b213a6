/**
 * `instanceof` across weft's two builds. The package ships an ES-module and a CommonJS copy, and an app can load
 * both (its own code imports `weft`, a dependency requires it): an error class of one copy is not the other's,
 * so `error instanceof WeftNotFoundError` would be false for an error of the other copy. Each error carries the
 * names of its classes under a key shared by every copy, and the classes' `Symbol.hasInstance` reads them.
 */
const LINEAGE = Symbol.for('weft.error.lineage');

/** Marks `error` with the names of its classes, from its own (`newTarget`) up to the built-in `Error`. */
export function markLineage(error: Error, newTarget: Function): void {
  const names: string[] = [];
  for (let ctor: Function | null = newTarget; ctor && ctor !== Error && ctor !== Function.prototype; ctor = Object.getPrototypeOf(ctor)) {
    names.push(ctor.name);
  }
  // Not enumerable: util.inspect and JSON leave it out.
  Object.defineProperty(error, LINEAGE, { value: names });
}

/** Whether `value` is an instance of `ctor`, in this copy of weft or in the other. */
export function isInstanceAcrossBuilds(ctor: Function, value: unknown): boolean {
  if (Function.prototype[Symbol.hasInstance].call(ctor, value)) return true;
  // Only an Error of the other copy carries a lineage: a plain object that copied the key is not one.
  if (!(value instanceof Error)) return false;
  const lineage = (value as { [LINEAGE]?: unknown })[LINEAGE];
  return Array.isArray(lineage) && lineage.includes(ctor.name);
}
