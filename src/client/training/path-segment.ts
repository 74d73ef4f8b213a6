import { encodeSegment } from '../core/url.js';

/**
 * Turns an id into one URL path segment. Ids may look like paths (`OpenPipe/Qwen3-14B-Instruct`,
 * `wandb-artifact:///e/p/m:step3`), so every reserved character is percent-encoded and the id stays one
 * segment. `.` and `..` are refused: URL parsers resolve them as dot segments even when percent-encoded
 * (`%2E%2E`), and the request would reach another endpoint.
 */
export function pathSegment(id: string, name: string): string {
  if (typeof id !== 'string' || id === '') {
    throw new TypeError(`weft: \`${name}\` must be a non-empty string, got ${JSON.stringify(id)}.`);
  }
  if (id === '.' || id === '..') {
    throw new TypeError(`weft: \`${name}\` cannot be "${id}": a URL would read it as a relative path.`);
  }
  return encodeSegment(id);
}
