/**
 * Waits `ms`, or rejects with `abortError()` as soon as one of `signals` aborts (e.g. the caller's signal and
 * the client's closing).
 */
export function abortableSleep(
  ms: number,
  signals: AbortSignal | undefined | ReadonlyArray<AbortSignal | undefined>,
  abortError: () => Error,
): Promise<void> {
  const watched = (Array.isArray(signals) ? signals : [signals]).filter((s): s is AbortSignal => s !== undefined);
  return new Promise((resolve, reject) => {
    if (watched.some((s) => s.aborted)) {
      reject(abortError());
      return;
    }
    const stop = () => {
      clearTimeout(timer);
      for (const s of watched) s.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      stop();
      reject(abortError());
    };
    const timer = setTimeout(() => {
      stop();
      resolve();
    }, ms);
    for (const s of watched) s.addEventListener('abort', onAbort, { once: true });
  });
}
