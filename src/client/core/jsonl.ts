/**
 * JSON Lines decoding over a byte stream, in constant memory: only the current (partial) line is held,
 * whatever its length, and a line split across chunks is joined before it is parsed. Bytes are split on
 * `\n` before decoding, so a multi-byte character split across chunks decodes correctly.
 */

const NEWLINE = 0x0a;

/** Thrown for a line that is not JSON; `lineNumber` counts from 1. */
export type LineErrorFactory = (lineNumber: number, cause: unknown) => Error;

/**
 * Yields one parsed value per non-blank line; a last line without a trailing newline is parsed when the
 * stream ends. Stopping the iteration stops reading `chunks` (its `return()` is called).
 */
export async function* parseJsonLines<T>(chunks: AsyncIterable<Uint8Array>, lineError: LineErrorFactory): AsyncGenerator<T> {
  const decoder = new TextDecoder();
  let pending: Uint8Array[] = [];
  let lineNumber = 0;

  const parse = (bytes: Uint8Array): { value: T } | undefined => {
    lineNumber++;
    const text = decoder.decode(bytes);
    if (text.trim() === '') return undefined;
    try {
      return { value: JSON.parse(text) as T };
    } catch (error) {
      throw lineError(lineNumber, error);
    }
  };

  for await (const chunk of chunks) {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE, start);
    while (newline !== -1) {
      const piece = chunk.subarray(start, newline);
      const line = pending.length === 0 ? piece : concat([...pending, piece]);
      pending = [];
      const parsed = parse(line);
      if (parsed) yield parsed.value;
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  if (pending.length > 0) {
    const parsed = parse(concat(pending));
    if (parsed) yield parsed.value;
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  return Buffer.concat(parts);
}
