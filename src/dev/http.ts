import type { IncomingMessage, ServerResponse } from 'node:http';

/** How a route family words its errors: FastAPI's `{detail}` (trace, training) or OpenAI's `{error}` (chat). */
/**
 * How a service words its errors: FastAPI's `{detail}` (the training service, and any path no route serves), OpenAI's
 * `{error: {message, type, param, code}}` (chat completions), or the trace service's: its own errors as `{reason}`
 * (weave's error registry formats every domain error so), its request validation as FastAPI's `{detail: [issues]}`.
 */
export type ErrorStyle = 'fastapi' | 'openai' | 'weave';

/** One FastAPI validation issue, as in a 422 `detail` list. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * An error a handler throws to answer with a status. `detail` is a human sentence or FastAPI's issue list;
 * the router words it in the route's {@link ErrorStyle}.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly detail: string | ValidationIssue[];
  /** For OpenAI-style bodies: `error.type`, `error.code` and `error.param`. */
  readonly openai: { type: string; code: string | null; param: string | null };

  constructor(
    status: number,
    detail: string | ValidationIssue[],
    openai: Partial<{ type: string; code: string | null; param: string | null }> = {},
  ) {
    super(typeof detail === 'string' ? detail : detail.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
    this.status = status;
    this.detail = detail;
    this.openai = {
      type: openai.type ?? (status === 401 ? 'authentication_error' : 'invalid_request_error'),
      code: openai.code ?? null,
      param: openai.param ?? null,
    };
  }
}

/** Renders an error body in the given style. */
export function errorBody(error: HttpError, style: ErrorStyle): unknown {
  if (style === 'fastapi') return { detail: error.detail };
  if (style === 'weave') return typeof error.detail === 'string' ? { reason: error.detail } : { detail: error.detail };
  return { error: { message: error.message, type: error.openai.type, param: error.openai.param, code: error.openai.code } };
}

/** Writes a JSON response. */
export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

/** Writes JSONL: one JSON value per line, the format of the `*stream_query` routes. */
export function sendJsonl(res: ServerResponse, values: Iterable<unknown>): void {
  // Written whole before the status: a value that cannot be written (nested too deep) is then a 500, not a 200
  // with an empty body that reads as no results.
  let text = '';
  for (const value of values) text += `${JSON.stringify(value)}\n`;
  res.writeHead(200, { 'content-type': 'application/jsonl' });
  res.end(text);
}

/** Reads a whole request body, refusing more than `limit` bytes with a 413. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > limit) {
        refused = true;
        reject(new HttpError(413, `Request body is larger than the limit of ${limit} bytes.`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!refused) resolve(Buffer.concat(chunks));
    });
    req.on('error', (error) => {
      if (!refused) reject(error);
    });
  });
}

/**
 * How deep JSON may nest (arrays and objects in one another). The service's FastAPI parses a body with Python's `json`,
 * which gives up at about its recursion limit of 1000 and answers 400 "There was an error parsing the body"; weft dev's
 * own walks of a value (validation, digests, queries, `JSON.stringify`) are recursive too, and a value a few thousand
 * deep ran them out of stack: a 500 on the write, or a stored call that made every later query of its project a 500.
 */
export const MAX_JSON_DEPTH = 1000;

/** Whether JSON text nests arrays and objects deeper than {@link MAX_JSON_DEPTH} (brackets inside strings aside). */
export function nestsTooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // a backslash: the next unit is escaped
      else if (c === 34) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 91 || c === 123) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (c === 93 || c === 125) {
      depth--;
    }
  }
  return false;
}

/** Parses a JSON body, answering a 422 (FastAPI's `json_invalid`) that says where it broke. */
export function parseJson(body: Buffer): unknown {
  const text = body.toString('utf8');
  if (text.trim() === '') {
    throw new HttpError(422, [{ loc: ['body'], msg: 'Field required: the request needs a JSON body', type: 'missing' }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HttpError(422, [
      { loc: ['body'], msg: `JSON decode error: ${(error as Error).message}`, type: 'json_invalid' },
    ]);
  }
  // Refused as the service's FastAPI refuses a body its parser gives up on (see MAX_JSON_DEPTH).
  if (nestsTooDeep(text)) throw new HttpError(400, `There was an error parsing the body: it nests deeper than ${MAX_JSON_DEPTH} levels.`);
  return value;
}
