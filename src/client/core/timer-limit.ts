/**
 * The longest delay a Node timer can wait: 2^31 − 1 ms, about 24.8 days. A longer one does not wait longer:
 * Node warns (TimeoutOverflowWarning) and fires after 1 ms, so a huge `timeoutMs` would time out every
 * request at once. Options that become timers are checked against it.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;
