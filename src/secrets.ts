/**
 * The secrets weft has been given or has seen (its own API key, the keys of the clients it traces), so that
 * every place that records text an error or a server produced — exception events, span status, log lines — can
 * remove them, whichever folder the text passes through. Shared by the ESM and CommonJS copies of weft.
 */
const SECRETS_KEY = Symbol.for('weft.secrets');
const shared = globalThis as { [SECRETS_KEY]?: Set<string> };
shared[SECRETS_KEY] ??= new Set<string>();
const known = shared[SECRETS_KEY];

// Shorter strings are too likely to occur in ordinary text; a process holds only a few keys.
const MIN_LENGTH = 8;
const MAX_KNOWN = 32;

/** Remembers a secret so that {@link scrubSecrets} removes it. Cheap to call again with the same value. */
export function rememberSecret(value: unknown): void {
  if (typeof value === 'string' && value.length >= MIN_LENGTH && known.size < MAX_KNOWN) known.add(value);
}

/** `text` with every remembered secret replaced by `[REDACTED]`. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const secret of known) if (out.includes(secret)) out = out.split(secret).join('[REDACTED]');
  return out;
}
