/**
 * Finds the chat `Completions` prototype in whatever the app hands weft: the `openai` module (CommonJS exports
 * or an ESM namespace), the `OpenAI` class, or a client instance. Returns undefined when the shape is not the
 * one weft knows (`Chat.Completions.prototype.create`), so the caller can leave it alone.
 */

/** The methods weft patches. `parse` exists from openai 5 on (in 4 it is `beta.chat.completions.parse`, which calls `create`). */
export interface CompletionsPrototype {
  create: (...args: unknown[]) => unknown;
  parse?: (...args: unknown[]) => unknown;
  /** openai 5 on; in 4, `beta.chat.completions.stream` (see {@link findBetaHelpersPrototype}). */
  stream?: (...args: unknown[]) => unknown;
}

type Loose = Record<PropertyKey, unknown> | undefined;

/** The chat `Completions` prototype of an openai module, class or client; undefined when the shape is unknown. */
export function findCompletionsPrototype(target: unknown): CompletionsPrototype | undefined {
  for (const candidate of candidates(target)) {
    const proto = fromClass(candidate) ?? fromInstance(candidate);
    if (proto) return proto;
  }
  return undefined;
}

function candidates(target: unknown): unknown[] {
  const t = target as Loose;
  if (!t || (typeof t !== 'object' && typeof t !== 'function')) return [];
  return [t, t.OpenAI, t.default, (t.default as Loose)?.OpenAI];
}

function fromClass(candidate: unknown): CompletionsPrototype | undefined {
  const chat = (candidate as Loose)?.Chat as Loose;
  const completions = chat?.Completions as Loose;
  return asPrototype(completions?.prototype);
}

function fromInstance(candidate: unknown): CompletionsPrototype | undefined {
  const completions = ((candidate as Loose)?.chat as Loose)?.completions;
  return completions && typeof completions === 'object' ? asPrototype(Object.getPrototypeOf(completions)) : undefined;
}

function asPrototype(value: unknown): CompletionsPrototype | undefined {
  if (!value || typeof value !== 'object') return undefined;
  return typeof (value as CompletionsPrototype).create === 'function' ? (value as CompletionsPrototype) : undefined;
}

/**
 * openai 4's streaming helpers (`beta.chat.completions.stream()`, `.runTools()`, `.runFunctions()`) live on a prototype
 * of their own, which the `openai` module and class reach only through a client: found in a client instance, or in a
 * `Beta` resource built for the purpose over a client that is never called (a resource only keeps its client).
 * Undefined from openai 5 on, whose helpers are on `chat.completions`.
 */
export function findBetaHelpersPrototype(target: unknown): object | undefined {
  const fromClient = betaCompletionsPrototype((target as Loose)?.beta);
  if (fromClient) return fromClient;
  for (const candidate of candidates(target)) {
    const Beta = (candidate as Loose)?.Beta;
    if (typeof Beta !== 'function' || typeof fromClass(candidate)?.stream === 'function') continue;
    try {
      const prototype = betaCompletionsPrototype(new (Beta as new (client: unknown) => unknown)(UNCALLED_CLIENT));
      if (prototype) return prototype;
    } catch {
      // A `Beta` weft does not know: its helpers stay unpatched (their calls of `create()` are traced all the same).
    }
  }
  return undefined;
}

// What a resource's constructor may read of its client: early 4.x releases bind the client's HTTP methods.
const UNCALLED_CLIENT: unknown = new Proxy({}, { get: () => () => undefined });

function betaCompletionsPrototype(beta: unknown): object | undefined {
  const completions = ((beta as Loose)?.chat as Loose)?.completions;
  const prototype = completions && typeof completions === 'object' ? Object.getPrototypeOf(completions) : undefined;
  return typeof prototype?.stream === 'function' ? prototype : undefined;
}
