/**
 * Waits for `promise`, failing with a message naming `what` if it has not settled after `seconds` (default 5): a
 * test of something that must not hang fails with a clear message, not with the test runner's timeout.
 */
export async function settlesWithin<T>(promise: Promise<T>, what: string, seconds = 5): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} had not settled after ${seconds} s`)), seconds * 1000);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
