/**
 * Whether `value` is an object whose keys can be read as a record: not `null`, not an array, and of any class (an
 * instance passes, as an object literal does). Where only an object literal's kind may pass, {@link isPlainObject}
 * (`is-plain-object.ts`) is the check.
 *
 * @example
 * isObjectRecord({ a: 1 }) // true
 * isObjectRecord(new Map()) // true: a class's instance is an object too
 * isObjectRecord([1, 2]) // false
 */
export function isObjectRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
