/**
 * How many cases a property draws, and from which seed: fixed by default, so that a CI run is repeatable and a
 * failure can be replayed; `WEFT_FUZZ_RUNS=N` (every property draws N) and `WEFT_FUZZ_SEED=S` search further. A
 * failing property prints its seed and the case it shrank to.
 */
export function runs(numRuns: number): { numRuns: number; seed: number } {
  return {
    numRuns: Number(process.env.WEFT_FUZZ_RUNS ?? numRuns),
    seed: Number(process.env.WEFT_FUZZ_SEED ?? 20261128),
  };
}
