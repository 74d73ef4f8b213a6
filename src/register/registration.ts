import type { WeftHandle } from './register.js';

// The registration of this process, apart from register() so that the span processor can ask for it without
// importing register.ts (which imports the span processor).

/** One registration per process, shared by the ESM and CommonJS copies of weft when both are loaded. */
export const STATE_KEY = Symbol.for('weft.register.handle');
/** The handle weft/register made, from the environment: an app started with it that calls register() too is told so. */
export const ZERO_CODE_KEY = Symbol.for('weft.register.zero-code-handle');
/** The options the registration was made with (none for weft/register's): a later call that repeats them is quiet. */
export const GIVEN_OPTIONS_KEY = Symbol.for('weft.register.given-options');
type GlobalState = { [STATE_KEY]?: WeftHandle; [ZERO_CODE_KEY]?: WeftHandle; [GIVEN_OPTIONS_KEY]?: object | undefined };
/** Where the registrations are kept: on `globalThis`, under the three keys above. */
export const state = globalThis as GlobalState;

/**
 * The registration of this process, made by any copy of weft, if there is one.
 *
 * @internal
 */
export function existingRegistration(): WeftHandle | undefined {
  return state[STATE_KEY];
}
