import { WeftConfigError } from '../config/index.js';
import { registerZeroCode } from './register.js';

/**
 * `register()` configured by the environment alone, for the zero-code entry points (`weft/register`). Nothing
 * here may stop the app from starting: a configuration error is printed once, clearly, and the app runs untraced.
 *
 * @internal
 */
export function registerFromEnvironment(): void {
  try {
    registerZeroCode();
  } catch (error) {
    const reason = error instanceof WeftConfigError ? error.message : `weft: could not start tracing: ${String(error)}`;
    process.emitWarning(`${reason} Tracing is off for this process.`, { code: 'WEFT_REGISTER' });
  }
}
