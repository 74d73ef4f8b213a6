import { HttpError, type ValidationIssue } from './http.js';
import { isObjectRecord } from '../is-object-record.js';

/**
 * A field of a request body. The real services validate with pydantic (mostly `extra="forbid"`), so this
 * checks the same things: required fields, JSON types, and, for strict objects, unknown fields.
 */
export type FieldSpec =
  | { type: 'string' | 'integer' | 'number' | 'boolean' | 'any' | 'datetime' | 'uuid'; required?: boolean; nullable?: boolean }
  /** One of a fixed set of strings, as pydantic's `Literal[...]` (a `literal_error` otherwise). */
  | { type: 'literal'; allowed: readonly string[]; required?: boolean; nullable?: boolean }
  | { type: 'array'; items?: FieldSpec; required?: boolean; nullable?: boolean }
  | {
      type: 'object';
      fields?: Record<string, FieldSpec>;
      strict?: boolean;
      /** For a map (`{[key]: value}`): the spec every value must meet. */
      values?: FieldSpec;
      required?: boolean;
      nullable?: boolean;
    };

/** The fields of an object body; `strict` rejects fields that are not listed. */
export interface ObjectSpec {
  fields: Record<string, FieldSpec>;
  strict?: boolean;
}

const MESSAGES: Record<string, [string, string]> = {
  string: ['Input should be a valid string', 'string_type'],
  integer: ['Input should be a valid integer', 'int_type'],
  number: ['Input should be a valid number', 'float_type'],
  boolean: ['Input should be a valid boolean', 'bool_type'],
  array: ['Input should be a valid list', 'list_type'],
  object: ['Input should be a valid dictionary or object', 'dict_type'],
  datetime: ['Input should be a valid datetime (ISO 8601)', 'datetime_type'],
};

function checkField(value: unknown, spec: FieldSpec, loc: (string | number)[], issues: ValidationIssue[]): void {
  if (value === null) {
    if (!spec.nullable && spec.type !== 'any') issues.push({ loc, msg: 'Input should not be null', type: 'none_forbidden' });
    return;
  }
  const fail = () => {
    const [msg, type] = MESSAGES[spec.type] ?? ['Invalid input', 'value_error'];
    issues.push({ loc, msg, type });
  };
  switch (spec.type) {
    case 'any':
      return;
    case 'string':
      if (typeof value !== 'string') fail();
      return;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) fail();
      return;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) fail();
      return;
    case 'boolean':
      if (typeof value !== 'boolean') fail();
      return;
    case 'datetime':
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) fail();
      return;
    case 'literal':
      if (typeof value !== 'string' || !spec.allowed.includes(value)) issues.push(oneOfIssue(spec.allowed, loc, 'literal_error'));
      return;
    case 'uuid': {
      const issue = uuidIssue(value);
      if (issue) issues.push({ loc, ...issue });
      return;
    }
    case 'array':
      if (!Array.isArray(value)) {
        fail();
        return;
      }
      if (spec.items) {
        for (const [i, item] of value.entries()) checkField(item, spec.items, [...loc, i], issues);
      }
      return;
    case 'object':
      if (!isObjectRecord(value)) {
        fail();
        return;
      }
      if (spec.fields) checkObject(value, { fields: spec.fields, strict: spec.strict }, loc, issues);
      if (spec.values) for (const [name, item] of Object.entries(value)) checkField(item, spec.values, [...loc, name], issues);
      return;
  }
}

function checkObject(
  value: Record<string, unknown>,
  spec: ObjectSpec,
  loc: (string | number)[],
  issues: ValidationIssue[],
): void {
  for (const [name, field] of Object.entries(spec.fields)) {
    const present = Object.hasOwn(value, name) && value[name] !== undefined;
    if (!present) {
      if (field.required) issues.push({ loc: [...loc, name], msg: 'Field required', type: 'missing' });
      continue;
    }
    checkField(value[name], field, [...loc, name], issues);
  }
  if (spec.strict) {
    for (const name of Object.keys(value)) {
      if (!Object.hasOwn(spec.fields, name)) {
        issues.push({ loc: [...loc, name], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
      }
    }
  }
}

/**
 * Checks a parsed JSON body against a spec and returns it typed, or throws a 422 listing every problem
 * (FastAPI's `{detail: [{loc, msg, type}]}`).
 */
export function checkBody<T>(value: unknown, spec: ObjectSpec): T {
  const issues: ValidationIssue[] = [];
  if (!isObjectRecord(value)) {
    issues.push({ loc: ['body'], msg: 'Input should be a valid dictionary or object', type: 'dict_type' });
  } else {
    checkObject(value, spec, ['body'], issues);
  }
  if (issues.length > 0) throw new HttpError(422, issues);
  return value as T;
}

/**
 * Checks one part of a body (an item of a batch) against a spec, like {@link checkBody}, with the 422's
 * locations rooted at `loc` (e.g. `['body', 'batch', 2]`) so that the caller sees which item failed.
 */
export function checkAt<T>(value: unknown, spec: ObjectSpec, loc: (string | number)[]): T {
  try {
    return checkBody<T>(value, spec);
  } catch (error) {
    if (error instanceof HttpError && Array.isArray(error.detail)) {
      throw new HttpError(
        422,
        error.detail.map((i) => ({ ...i, loc: [...loc, ...i.loc.slice(1)] })),
      );
    }
    throw error;
  }
}

/** Reads an integer query parameter within bounds, or throws a 422 naming it. */
export function queryInt(url: URL, name: string, fallback: number, min: number, max: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new HttpError(422, [
      {
        loc: ['query', name],
        msg: `Input should be an integer between ${min} and ${max}`,
        type: 'int_parsing',
      },
    ]);
  }
  return value;
}

/** Reads a required string query parameter (`?project_id=` on GET and DELETE routes), or throws a 422 naming it. */
export function queryString(url: URL, name: string): string {
  const value = url.searchParams.get(name);
  if (value === null || value === '') {
    throw new HttpError(422, [{ loc: ['query', name], msg: 'Field required', type: 'missing' }]);
  }
  return value;
}

/**
 * How pydantic refuses a value outside a fixed set: `Input should be 'a', 'b' or 'c'`, typed `literal_error` for a
 * `Literal[...]` field and `enum` for an `Enum` one.
 */
function oneOfIssue(allowed: readonly string[], loc: (string | number)[], type: 'enum' | 'literal_error'): ValidationIssue {
  const quoted = allowed.map((a) => `'${a}'`);
  const expected = quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : (quoted[0] ?? '');
  return { loc, msg: `Input should be ${expected}`, type };
}

/**
 * Checks that a value is one of a fixed set, or throws a 422 at `loc` listing the allowed values. `type` is the
 * error type the service's pydantic gives: `enum` for a field typed with an `Enum` (the default), `literal_error`
 * for one typed `Literal[...]` (a body field of that kind is better declared `{ type: 'literal' }` in its spec).
 */
export function checkOneOf<T extends string>(
  value: string,
  allowed: readonly T[],
  loc: (string | number)[],
  type: 'enum' | 'literal_error' = 'enum',
): T {
  if (!(allowed as readonly string[]).includes(value)) throw new HttpError(422, [oneOfIssue(allowed, loc, type)]);
  return value as T;
}

const HYPHENATED_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SIMPLE_UUID = /^[0-9a-f]{32}$/i;

// The forms pydantic's UUID type reads: hyphenated or 32 hex digits, either one braced or after `urn:uuid:`.
function uuidDigits(value: string): string | undefined {
  const bare = value.startsWith('urn:uuid:') ? value.slice(9) : /^\{.*\}$/.test(value) ? value.slice(1, -1) : value;
  if (HYPHENATED_UUID.test(bare)) return bare.replaceAll('-', '').toLowerCase();
  if (SIMPLE_UUID.test(bare)) return bare.toLowerCase();
  return undefined;
}

function uuidIssue(value: unknown): { msg: string; type: string } | undefined {
  if (typeof value !== 'string') return { msg: 'UUID input should be a string, bytes or UUID object', type: 'uuid_type' };
  return uuidDigits(value) === undefined ? { msg: 'Input should be a valid UUID', type: 'uuid_parsing' } : undefined;
}

/**
 * Checks that a value is a UUID, as the training service's FastAPI does for its uuid-typed path parameters
 * and body fields, and returns it in the canonical form (lowercase, hyphenated) the store keys on; throws a
 * 422 at `loc` otherwise.
 */
export function checkUuid(value: unknown, loc: (string | number)[]): string {
  const issue = uuidIssue(value);
  if (issue) throw new HttpError(422, [{ loc, ...issue }]);
  const hex = uuidDigits(value as string)!;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
