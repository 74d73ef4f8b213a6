import { WeftConfigError } from '../config/index.js';
import { registerZeroCode, type WeftHandle } from './register.js';
import { existingRegistration } from './registration.js';

/**
 * `register()` configured by the environment alone, for the zero-code entry points (`weft/register`). Nothing
 * here may stop the app from starting: a configuration error is printed once, clearly, and the app runs untraced.
 * A registration made before it (by the app's own preload, `node --import ./setup.mjs --import weft/register`, or by
 * the other entry, `-r weft/register --import weft/register`) stands as it is, without the warning a second
 * `register()` of the app's own gets: the entry joins it. Returns the registration, or undefined if tracing is off.
 *
 * @internal
 */
export function registerFromEnvironment(): WeftHandle | undefined {
  const earlier = existingRegistration();
  if (earlier) return earlier;
  try {
    return registerZeroCode();
  } catch (error) {
    const reason = error instanceof WeftConfigError ? error.message : `weft: could not start tracing: ${String(error)}`;
    process.emitWarning(`${reason} Tracing is off for this process.`, { code: 'WEFT_REGISTER' });
    return undefined;
  }
}
