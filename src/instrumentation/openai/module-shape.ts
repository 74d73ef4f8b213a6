/**
 * Finds the chat `Completions` prototype in whatever the app hands weft: the `openai` module (CommonJS exports
 * or an ESM namespace), the `OpenAI` class, or a client instance. Returns undefined when the shape is not the
 * one weft knows (`Chat.Completions.prototype.create`), so the caller can leave it alone.
 */

/** The methods weft patches. `parse` exists from openai 5 on (in 4 it is `beta.chat.completions.parse`, which calls `create`). */
export interface CompletionsPrototype {
  create: (...args: unknown[]) => unknown;
  parse?: (...args: unknown[]) => unknown;
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
