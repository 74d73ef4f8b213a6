/**
 * The text weft puts in a recorded value where it left something out: one spelling, `[weft: …]`, for an op's inputs
 * and output and a chat span's messages alike, so that a reader of the trace service (or a search there) finds every
 * cut the same way and never takes a mark for the app's or the model's own text. Secrets found inside a text are
 * `[REDACTED]` instead (see secrets.ts), as in weft's errors and logs.
 */
export const MARK = {
  circular: '[Circular]',
  depth: '[weft: max depth]',
  unreadable: '[weft: unreadable]',
  moreItems: (n: number) => `[weft: ${n} more items]`,
  moreKeys: (n: number) => `[weft: ${n} more keys]`,
  /** After the kept head of a string, or of a message's text. */
  cutString: (n: number) => `…[weft: ${n} more chars]`,
  /** In place of the oldest messages of a chat, when even short ones do not all fit. */
  earlierMessages: (n: number) => `[weft: ${n} earlier messages left out]`,
  /** The value of a key named like a credential (`apiKey`, `authorization`, …). */
  redacted: '[weft: redacted]',
} as const;
