/**
 * The secrets weft has been given or has seen (its own API key, the keys of the clients it traces), so that
 * every place that records text an error or a server produced — exception events, span status, log lines — can
 * remove them, whichever folder the text passes through. Shared by the ESM and CommonJS copies of weft.
 */
const SECRETS_KEY = Symbol.for('weft.secrets');
const PINNED_KEY = Symbol.for('weft.secrets.pinned');
const NEWEST_KEY = Symbol.for('weft.secrets.newest');
const shared = globalThis as {
  [SECRETS_KEY]?: Set<string>;
  [PINNED_KEY]?: Set<string>;
  [NEWEST_KEY]?: { value: string | undefined };
};
shared[SECRETS_KEY] ??= new Set<string>();
shared[PINNED_KEY] ??= new Set<string>();
shared[NEWEST_KEY] ??= { value: undefined };
/** In the order they were last remembered, oldest first. */
const known = shared[SECRETS_KEY];
/** Never evicted: weft's own API key. */
const pinned = shared[PINNED_KEY];
/** The last secret of {@link known}: every traced chat call remembers its client's key, most often the newest. */
const newest = shared[NEWEST_KEY];

// Shorter strings are too likely to occur in ordinary text. A process usually holds only a few keys; past this
// many (an app creating a client per tenant), the one remembered longest ago makes room, so new keys are always
// scrubbed.
const MIN_LENGTH = 8;
const MAX_KNOWN = 32;

/**
 * Remembers a secret so that {@link scrubSecrets} removes it. Cheap to call again with the same value, which
 * makes it the most recently remembered. A `pinned` secret (weft's own key) is never made room for.
 */
export function rememberSecret(value: unknown, pinnedSecret = false): void {
  if (typeof value !== 'string' || value.length < MIN_LENGTH) return;
  if (pinnedSecret) pinned.add(value);
  else if (value === newest.value) return;
  known.delete(value);
  known.add(value);
  newest.value = value;
  if (known.size <= MAX_KNOWN) return;
  for (const oldest of known) {
    if (pinned.has(oldest) || oldest === value) continue;
    known.delete(oldest);
    return;
  }
}

/** Length of the longest remembered secret: how far past a cut a secret that starts before it can reach. */
export function longestSecretLength(): number {
  let longest = 0;
  for (const secret of known) if (secret.length > longest) longest = secret.length;
  return longest;
}

/** `text` with every remembered secret replaced by `[REDACTED]`. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const secret of known) if (out.includes(secret)) out = out.split(secret).join('[REDACTED]');
  return out;
}

// Endings of a credential's name, once lower-cased and without `-`, `_` or spaces.
const CREDENTIAL_NAME_ENDING = /(?:apikeys?|token|secrets?|authorization|passwords?|passwd|privatekey|cookie|credentials?)$/;

/**
 * Whether a name's value is a credential: keys of an object handed to an op (an SDK client, a request's options,
 * headers), and header names. Compared without case, `-` or `_`, by their ending, so that `myApiKey`,
 * `OPENAI_API_KEY`, `csrfToken`, `x-api-key` and `Proxy-Authorization` are caught while `max_tokens` and
 * `total_tokens` (plural) stay readable.
 *
 * @example
 * isCredentialName('OPENAI_API_KEY'); // true
 * isCredentialName('max_tokens'); // false
 */
export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME_ENDING.test(name.toLowerCase().replace(/[-_\s]/g, ''));
}

/** A header carrying a credential: a credential name, or any name ending in `key` (`Ocp-Apim-Subscription-Key`). */
export function isCredentialHeader(name: string): boolean {
  return isCredentialName(name) || /key$/i.test(name);
}

/**
 * Remembers the values of the credential headers among `headers` (a proxy's `Proxy-Authorization`, a gateway's
 * `x-functions-key`), and the credential alone after a scheme such as `Bearer`, which is what a server echoes most
 * often. `pinnedSecrets` as for {@link rememberSecret}. Returns them, for callers that keep their own list too.
 */
export function rememberCredentialHeaders(
  headers: Readonly<Record<string, string | null | undefined>> | undefined,
  pinnedSecrets = false,
): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (typeof value !== 'string' || !isCredentialHeader(name)) continue;
    const credential = /^[A-Za-z][\w.+-]*\s+(\S.*)$/.exec(value.trim())?.[1];
    for (const secret of credential ? [value, credential] : [value]) {
      if (secret.length < MIN_LENGTH) continue;
      rememberSecret(secret, pinnedSecrets);
      values.push(secret);
    }
  }
  return values;
}
