import { isInstanceAcrossBuilds, markLineage, ownErrorClasses } from '../cross-build.js';

/**
 * Thrown when an option or environment variable has a value weft cannot use.
 * The message names the option, its environment variable, and what was expected; it never contains a secret.
 *
 * @example
 * try { register({ project: 'no-slash' }) } catch (e) { if (e instanceof WeftConfigError) console.error(e.message) }
 */
export class WeftConfigError extends Error {
  override readonly name = 'WeftConfigError';
  /** The option that was wrong, e.g. `project`. */
  readonly option: string;
  /** Its environment variable, e.g. `WEFT_PROJECT`, when it has one. */
  readonly envVar: string | undefined;

  constructor(option: string, envVar: string | undefined, message: string) {
    super(message);
    this.option = option;
    this.envVar = envVar;
    markLineage(this, new.target);
  }

  /** True for errors of the other build of weft too (ES module and CommonJS): see `cross-build.ts`. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class checked against, an app's subclass as well
    return isInstanceAcrossBuilds(this, value);
  }
}

ownErrorClasses(WeftConfigError);
