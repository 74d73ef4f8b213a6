/**
 * Parameter names of a function, read once from its source text, so that a call's inputs read
 * `{ question: "…" }` rather than `{ arg0: "…" }`. A destructured parameter has no name (`undefined`, so the
 * caller falls back to `argN`); a rest parameter is marked so its values can be gathered into one array.
 * Native, bound and unparsable functions give `[]`, not `known`.
 */
export interface ParameterList {
  readonly names: ReadonlyArray<string | undefined>;
  /** Index of a `...rest` parameter, or -1. */
  readonly restIndex: number;
  /**
   * Whether the list was read from the source and is the whole of what the function reads: then an argument past its
   * end is one the function never named. Not for a function that reads `arguments` (compiled `...rest` or default
   * values, a wrapper such as lodash's `memoize`).
   */
  readonly known: boolean;
  /** Whether the one parameter is an object pattern, `function getWeather({ city, unit })`: a tool's usual shape. */
  readonly soleObjectPattern: boolean;
}

const EMPTY: ParameterList = { names: [], restIndex: -1, known: false, soleObjectPattern: false };
const IDENTIFIER = /^[A-Za-z_$\u00a0-\uffff][\w$\u00a0-\uffff]*$/;
const BARE_ARROW = /^(?:async\s+)?([A-Za-z_$\u00a0-\uffff][\w$\u00a0-\uffff]*)\s*=>/;

/** Reads the parameter list of `fn`; never throws. */
export function parameterList(fn: Function): ParameterList {
  try {
    const source = stripComments(Function.prototype.toString.call(fn)).trim();
    if (source.endsWith('{ [native code] }') || source.startsWith('class')) return EMPTY;
    // An arrow function has no `arguments` of its own, but one inside a function it sits in does: either way the
    // word in the source says that more arguments than the named ones may be read.
    const readsArguments = /\barguments\b/.test(source);
    const bare = BARE_ARROW.exec(source);
    if (bare) return { names: [bare[1]], restIndex: -1, known: !readsArguments, soleObjectPattern: false };
    const inside = parenthesisedList(source);
    if (inside === undefined) return EMPTY;
    const list = parseParameters(inside);
    return readsArguments ? { ...list, known: false } : list;
  } catch {
    return EMPTY;
  }
}

/** The text between the first top-level `(` and its matching `)`. */
function parenthesisedList(source: string): string | undefined {
  let depth = 0;
  let start = -1;
  let previous = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (!/\s/.test(c)) previous = c === '/' ? previous : c;
    if (c === '"' || c === "'" || c === '`') {
      i = skipQuoted(source, i);
      continue;
    }
    if (c === '/' && startsRegex(previous)) {
      i = skipRegex(source, i);
      continue;
    }
    if (c === '(' || c === '[' || c === '{') {
      // A computed method key (`[Symbol.iterator](x) {}`) or default values hold brackets of their own.
      if (c === '(' && depth === 0 && start === -1) start = i + 1;
      depth++;
    } else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (c === ')' && depth === 0 && start !== -1) return source.slice(start, i);
    }
  }
  return undefined;
}

function parseParameters(list: string): ParameterList {
  const names: Array<string | undefined> = [];
  let restIndex = -1;
  let objectPatterns = 0;
  for (const raw of splitTopLevel(list)) {
    let text = raw.trim();
    if (text === '') continue;
    const isRest = text.startsWith('...');
    if (isRest) text = text.slice(3).trim();
    if (!isRest && text.startsWith('{')) objectPatterns++;
    const eq = text.indexOf('=');
    // In a destructuring pattern the `=` sits inside brackets; only a top-level one starts a default value.
    const name = (eq === -1 || /^[{[]/.test(text) ? text : text.slice(0, eq)).trim();
    if (isRest) restIndex = names.length;
    names.push(IDENTIFIER.test(name) ? name : undefined);
  }
  return { names, restIndex, known: true, soleObjectPattern: names.length === 1 && objectPatterns === 1 };
}

/** Splits on commas outside brackets, strings and regular expressions. */
function splitTopLevel(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  let previous = '';
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if (c === '"' || c === "'" || c === '`') {
      i = skipQuoted(list, i);
    } else if (c === '/' && startsRegex(previous)) {
      i = skipRegex(list, i);
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(list.slice(from, i));
      from = i + 1;
    }
    if (!/\s/.test(c)) previous = list[i]!;
  }
  parts.push(list.slice(from));
  return parts;
}

/** Index of the closing quote of the string starting at `i` (template literals: `${}` nesting is ignored). */
function skipQuoted(s: string, i: number): number {
  const quote = s[i];
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === quote) return j;
  }
  return s.length;
}

/** A `/` after one of these characters (or at the start) opens a regular expression, not a division. */
function startsRegex(previous: string): boolean {
  return previous === '' || '(,=:[!&|?{};+-*%<>~^'.includes(previous);
}

function skipRegex(s: string, i: number): number {
  let inClass = false;
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (c === '\\') j++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) return j;
    else if (c === '\n') return j;
  }
  return s.length;
}

/** Removes `//` and `/* *\/` comments outside strings; regex literals in default values are rare enough to ignore. */
function stripComments(source: string): string {
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '"' || c === "'" || c === '`') {
      const end = skipQuoted(source, i);
      out += source.slice(i, end + 1);
      i = end;
    } else if (c === '/' && source[i + 1] === '/') {
      const end = source.indexOf('\n', i);
      i = end === -1 ? source.length : end - 1;
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end === -1 ? source.length : end + 1;
      out += ' ';
    } else out += c;
  }
  return out;
}
