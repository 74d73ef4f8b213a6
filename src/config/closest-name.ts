/**
 * The name of `known` that `name` is most likely a misspelling of: one a letter away (`timeoutMS`: `timeoutMs`), one
 * that contains it (`timeoutMillis`: `exitFlushTimeoutMillis`), else one a few edits away (`projct`: `project`).
 * Undefined when none is near enough, or two are as near: a wrong suggestion sends the user further astray than none.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const given = name.toLowerCase();
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  let tied = false;
  for (const candidate of known) {
    const lower = candidate.toLowerCase();
    // Containing it, or its letters in order with some left out (`attributeLengthLimit`: `attributeValueLengthLimit`).
    const contains =
      Math.min(lower.length, given.length) >= 4 && (lower.includes(given) || given.includes(lower) || isSubsequence(given, lower));
    const edits = editDistance(given, lower);
    if (!contains && edits > Math.max(2, Math.floor(lower.length / 3))) continue;
    // A near edit (a case or a letter) comes first, then a containing name, then other edits; among them, the nearest.
    const score = edits <= 1 ? edits : contains ? 1 + Math.abs(lower.length - given.length) / 1000 : 1 + edits;
    if (score === bestScore) tied = true;
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
      tied = false;
    }
  }
  // Two names as near as each other: either guess may be the wrong one.
  return tied ? undefined : best;
}

/** Whether the letters of `short` all appear in `long`, in order. */
function isSubsequence(short: string, long: string): boolean {
  let at = 0;
  for (const letter of long) if (letter === short[at]) at++;
  return at === short.length;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}
