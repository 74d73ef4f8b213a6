/**
 * The offline model's tokenizer: a token is a run of letters, digits or underscores, or any other single
 * non-space character. Prompts and completions are counted the same way, and a streamed completion sends
 * exactly one token per chunk, so the usage the service reports is the usage it produced.
 */
const TOKEN = /[\p{L}\p{N}_]+|[^\p{L}\p{N}_\s]/gu;
// The same tokens, each with the whitespace before it, so that the pieces join back into the text.
const PIECE = /\s*(?:[\p{L}\p{N}_]+|[^\p{L}\p{N}_\s])/gu;

/** The number of tokens in a text. */
export function countTokens(text: string): number {
  return text.match(TOKEN)?.length ?? 0;
}

/** A text split into one piece per token (leading whitespace included), for streaming. */
export function tokenPieces(text: string): string[] {
  return text.match(PIECE) ?? [];
}

/** The first `max` tokens of a text. */
export function truncateTokens(text: string, max: number): string {
  return tokenPieces(text).slice(0, max).join('');
}
