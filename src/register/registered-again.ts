import { ENV } from '../config/index.js';
import { debug, warn } from '../diagnostics.js';
import { isPlainObject } from '../is-plain-object.js';
import type { WeftHandle } from './register.js';
import { GIVEN_OPTIONS_KEY, state, ZERO_CODE_KEY } from './registration.js';

/**
 * What a second register() says: the first registration stays as it was, so the options of this call change nothing.
 * An app started with `--import weft/register` (or `-r`) that also calls `register({ project })` would otherwise send
 * its spans elsewhere than it asked, with no word of which of its options went unused. Options that repeat what the
 * first registration has (the same project, the same value) are not named; with none left, it is said at debug level.
 */
export function sayRegisteredAgain(existing: WeftHandle, given: unknown): void {
  const first = state[GIVEN_OPTIONS_KEY] as Record<string, unknown> | undefined;
  const unused =
    typeof given === 'object' && given !== null
      ? Object.entries(given)
          .filter(([name, value]) => value !== undefined && !appliedAlready(existing, first, name, value))
          .map(([name]) => `\`${name}\``)
      : [];
  const where = existing.endpoint
    ? `spans go to ${existing.project} at ${existing.endpoint}`
    : 'tracing is off, as the first call said';
  if (unused.length === 0) {
    debug(`register() was called again; the first registration stays (${where}).`);
    return;
  }
  const said = `register() was called again: this call's ${unused.join(', ')} ${unused.length === 1 ? 'was' : 'were'} not applied; the first registration stays (${where}).`;
  if (state[ZERO_CODE_KEY] !== existing) {
    warn(said);
    return;
  }
  warn(`${said} It was weft/register's (node --import or -r weft/register), made from the environment: set WEFT_PROJECT, WEFT_API_KEY, WEFT_BASE_URL or OTEL_SERVICE_NAME there, or start the app without weft/register (an ES module app then patches openai with instrumentOpenAI(OpenAI)).`);
}

/**
 * Whether an option of a second register() says what the first registration has: its project, the first call's
 * value, or, for an option the first call left to the environment (weft/register's), the variable's value.
 */
function appliedAlready(existing: WeftHandle, first: Record<string, unknown> | undefined, name: string, value: unknown): boolean {
  if (name === 'project' && value === existing.project && existing.endpoint) return true;
  const variable = VARIABLE_OF[name];
  const before = first?.[name] ?? (variable === undefined ? undefined : process.env[variable]);
  return sameValue(before, value, 4);
}

// The options a registration made from the environment takes from these variables.
const VARIABLE_OF: Readonly<Record<string, string>> = {
  apiKey: ENV.apiKey,
  baseUrl: ENV.baseUrl,
  serviceName: 'OTEL_SERVICE_NAME',
};

/**
 * The same value: the same thing, or plain data and arrays (a resource attribute map, batch settings, a new list of
 * the same instrumentations) of the same content, compared `depth` levels down at most (a cycle is no match).
 */
function sameValue(a: unknown, b: unknown, depth: number): boolean {
  if (Object.is(a, b)) return true;
  if (depth === 0 || typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => sameValue(item, b[i], depth - 1));
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => key in b && sameValue(a[key], b[key], depth - 1));
}
