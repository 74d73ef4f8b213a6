/**
 * Resolves `true` when `work` settles (fulfilled or rejected: `onError` hears of a rejection), or `false` after
 * `ms`, whichever is first; never rejects. The timer does not keep the process alive.
 */
export function settleWithin(work: Promise<unknown>, ms: number, onError: (error: unknown) => void): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    work.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      (error: unknown) => {
        clearTimeout(timer);
        onError(error);
        resolve(true);
      },
    );
  });
}
