import { WeftConfigError } from 'weft';

/** The WeftConfigError `run` throws; fails the test if it throws nothing, or anything else. */
export function configError(run: () => unknown): WeftConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof WeftConfigError) return error;
    throw error;
  }
  throw new Error('expected a WeftConfigError');
}
