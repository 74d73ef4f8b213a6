/**
 * `instanceof` across weft's two builds. The package ships an ES-module and a CommonJS copy, and an app can load
 * both (its own code imports `weft`, a dependency requires it): an error class of one copy is not the other's,
 * so `error instanceof WeftNotFoundError` would be false for an error of the other copy. Each error carries the
 * names of its classes under a key shared by every copy, and the classes' `Symbol.hasInstance` reads them.
 */
const LINEAGE = Symbol.for('weft.error.lineage');

/** weft's own error classes: an app's subclass is matched by the prototype chain alone, never by its name. */
const OWN = new WeakSet<Function>();

/** Marks `classes` as weft's own, whose instances of the other build match them by name. */
export function ownErrorClasses(...classes: Function[]): void {
  for (const ctor of classes) OWN.add(ctor);
}

/** Marks `error` with the names of its classes, from its own (`newTarget`) up to the built-in `Error`. */
export function markLineage(error: Error, newTarget: Function): void {
  const names: string[] = [];
  for (let ctor: Function | null = newTarget; ctor && ctor !== Error && ctor !== Function.prototype; ctor = Object.getPrototypeOf(ctor)) {
    if (OWN.has(ctor)) names.push(ctor.name);
  }
  // Not enumerable: util.inspect and JSON leave it out.
  Object.defineProperty(error, LINEAGE, { value: names });
}

/** Whether `value` is an instance of `ctor`, in this copy of weft or in the other. */
export function isInstanceAcrossBuilds(ctor: Function, value: unknown): boolean {
  if (Function.prototype[Symbol.hasInstance].call(ctor, value)) return true;
  // Only weft's own classes match by name, and only an Error of the other copy carries a lineage.
  if (!OWN.has(ctor) || !(value instanceof Error)) return false;
  const lineage = (value as { [LINEAGE]?: unknown })[LINEAGE];
  return Array.isArray(lineage) && lineage.includes(ctor.name);
}
