import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// The flag only takes effect for contexts made after it is set, so `gc` comes from a new one.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Collects garbage and lets finalizers run, `rounds` times, so any object that can be collected is. */
export async function collectGarbage(rounds = 5): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
