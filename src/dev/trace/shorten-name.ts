// The characters the trace service prefers to cut a long name at.
const DELIMITERS = new Set([',', ';', '|', ' ', '/', '?', '.']);

// Python counts code points; so does this, so that a name cut here has the length the service gives it.
const codePoints = (s: string): string[] => Array.from(s);

/**
 * Shortens `name` to at most `maxLength` code points the way the trace service does (`shorten_name` in its
 * OTel helpers): whole pieces between delimiters are kept while they fit, then `abbreviation` is appended,
 * after the delimiter that follows the last kept piece when `delimiterInAbbreviation` is set. A name of at
 * most `maxLength` comes back unchanged; so does the service's, even though it calls this once a name
 * *reaches* the limit.
 *
 * @example
 * shortenName('alpha beta gamma', 12) // 'alpha ...'
 */
export function shortenName(name: string, maxLength: number, abbreviation = '...', delimiterInAbbreviation = true): string {
  const chars = codePoints(name);
  if (chars.length <= maxLength) return name;
  const abbreviationLength = codePoints(abbreviation).length;
  const cut = (s: string) => codePoints(s).slice(0, maxLength - abbreviationLength).join('') + abbreviation;
  const parts = name.split(/([,;| /?.])/).filter((p) => p !== '');
  if (parts.length <= 1) return cut(name);
  let shortened = parts[0]!;
  if (codePoints(shortened).length > maxLength - abbreviationLength) return cut(shortened);
  for (let i = 1; i < parts.length; i++) {
    let delimiter = '';
    while (i < parts.length && DELIMITERS.has(parts[i]!)) delimiter += parts[i++];
    // The service indexes past the end on a name that ends in delimiters; stopping keeps what was kept.
    if (i >= parts.length) break;
    const next = delimiter + parts[i];
    const tail =
      abbreviationLength === 0 ? '' : abbreviation.startsWith(delimiter) || !delimiterInAbbreviation ? abbreviation : delimiter + abbreviation;
    if (codePoints(shortened).length + codePoints(next).length >= maxLength - codePoints(tail).length) return shortened + tail;
    shortened += next;
  }
  return shortened;
}
