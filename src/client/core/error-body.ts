import type { ValidationIssue, WeftApiError } from './errors.js';

// The body of a failed response, read for a WeftApiError's message and fields, and the request's secrets kept out
// of them. The error classes are errors.ts.

/**
 * `JSON.parse` quotes the text around where it failed (`Unexpected token 'B', "Bearer sk-"... is not valid JSON`),
 * and a service that echoes the request's Authorization header would put part of the key there. The cause keeps
 * the kind of failure and its position, without the quoted text.
 */
export function withoutQuotedInput(cause: unknown): unknown {
  if (!(cause instanceof SyntaxError)) return cause;
  return new SyntaxError(cause.message.replace(/"(?:[^"\\]|\\.)*"(?:\.\.\.)?/g, '"…"'));
}

/** What a {@link WeftApiError} takes from the body of a failed response, every secret in it replaced. */
export interface ParsedErrorBody {
  /** The server's own message. */
  message: string;
  /** FastAPI's `detail`, the OpenAI-style `error` object, or the whole body. */
  detail: unknown;
  /** The body itself (parsed JSON, or its text). */
  body: unknown;
  type: string | undefined;
  code: string | undefined;
}

const MAX_MESSAGE_LENGTH = 1000;
const MAX_LISTED_ISSUES = 5;

/**
 * Replaces `secrets` (the API key) wherever they occur in the body, in case a server echoes a header back in its
 * error body, then reads the error shapes weft's services send (FastAPI's, OpenAI's, the trace service's `{reason}`,
 * and plain text).
 * Replaced first, before the message is cut to its length: a cut through the key would leave a part no redaction
 * finds. Every field read from the body (the OpenAI-style `type` and `code` too) comes from the redacted body.
 */
export function parseErrorBody(body: unknown, status: number, secrets: readonly string[] | undefined): ParsedErrorBody {
  const redacted = redactValue(body, secrets);
  return { ...readShape(redacted, status), body: redacted };
}

function readShape(body: unknown, status: number): Omit<ParsedErrorBody, 'body'> {
  const none = { type: undefined, code: undefined };
  if (body === undefined || body === null || body === '') {
    return { message: `HTTP ${status}`, detail: undefined, ...none };
  }
  if (typeof body === 'string') return { message: truncate(body.trim()), detail: body, ...none };
  if (typeof body !== 'object') return { message: truncate(String(body)), detail: body, ...none };
  const record = body as Record<string, unknown>;
  if ('detail' in record) {
    return { message: describeDetail(record.detail, status), detail: record.detail, ...none };
  }
  if ('error' in record) {
    const error = record.error;
    if (typeof error === 'string') return { message: truncate(error), detail: error, ...none };
    if (error && typeof error === 'object') {
      const e = error as Record<string, unknown>;
      return {
        message: typeof e.message === 'string' ? truncate(e.message) : truncate(JSON.stringify(error)),
        detail: error,
        type: typeof e.type === 'string' ? e.type : undefined,
        code: typeof e.code === 'string' || typeof e.code === 'number' ? String(e.code) : undefined,
      };
    }
  }
  // The trace service's own errors (a 400, 403, 404 of its error registry): `{reason}`, with fields of the error's
  // kind beside it (a deleted object's `deleted_at`), so the whole body is the detail.
  if (typeof record.reason === 'string') return { message: truncate(record.reason), detail: body, ...none };
  if (typeof record.message === 'string') return { message: truncate(record.message), detail: body, ...none };
  return { message: truncate(JSON.stringify(body)), detail: body, ...none };
}

function describeDetail(detail: unknown, status: number): string {
  if (typeof detail === 'string') return truncate(detail);
  if (Array.isArray(detail)) {
    const issues = detail.filter(isValidationIssue);
    if (issues.length === 0) return truncate(JSON.stringify(detail));
    const listed = issues.slice(0, MAX_LISTED_ISSUES).map(describeIssue);
    const more = issues.length > MAX_LISTED_ISSUES ? `; and ${issues.length - MAX_LISTED_ISSUES} more` : '';
    return truncate(listed.join('; ') + more);
  }
  if (detail === null || detail === undefined) return `HTTP ${status}`;
  return truncate(JSON.stringify(detail));
}

/** `["body","start","op_name"]` + `Field required` → `start.op_name: Field required`. */
function describeIssue(issue: ValidationIssue): string {
  const loc = issue.loc[0] === 'body' ? issue.loc.slice(1) : issue.loc;
  return loc.length > 0 ? `${loc.join('.')}: ${issue.msg}` : issue.msg;
}

/** Whether a value is one FastAPI validation issue (a `loc` and a `msg`). */
export function isValidationIssue(value: unknown): value is ValidationIssue {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return Array.isArray(v.loc) && typeof v.msg === 'string';
}

function truncate(text: string): string {
  return text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH)}…` : text;
}

/** Longest response header an error quotes (its request id, a redirect's `Location`). */
const MAX_QUOTED_HEADER_LENGTH = 200;

/**
 * A response header as an error quotes it: the secrets replaced, as in the body (a server may echo the request's
 * Authorization header into its request id), and cut to a length that fits a message.
 */
export function quotedHeader(value: string, secrets: readonly string[] | undefined): string {
  const text = redact(value, secrets);
  return text.length > MAX_QUOTED_HEADER_LENGTH ? `${text.slice(0, MAX_QUOTED_HEADER_LENGTH)}…` : text;
}

/**
 * Replaces secrets (the API key) with `***`, in case a server echoes a header back in its error body. Not
 * `scrubSecrets` (secrets.ts), which removes every secret the process remembered from text weft records: this takes
 * the secrets of the one core that sent the request (its key and credential headers, from 4 characters on where scrubSecrets needs 8), and
 * catches them in the forms a server quotes them back in, percent-encoded or JSON-escaped.
 */
export function redact(text: string, secrets: readonly string[] | undefined): string {
  let out = text;
  for (const secret of secrets ?? []) {
    if (secret.length < 4) continue;
    for (const form of quotedForms(secret)) out = out.split(form).join('***');
  }
  return out;
}

/**
 * `text`, cut short at an arbitrary point, without the start of a secret it ends with (from 4 characters on, as
 * {@link redact}): what is left of a secret cut through is not the secret, and no later redaction would find it.
 */
export function withoutSecretTail(text: string, secrets: readonly string[] | undefined): string {
  for (const secret of secrets ?? []) {
    if (secret.length < 4) continue;
    for (const form of quotedForms(secret)) {
      for (let length = form.length - 1; length >= 4; length--) {
        if (text.endsWith(form.slice(0, length))) return `${text.slice(0, text.length - length)}***`;
      }
    }
  }
  return text;
}

/**
 * The secret as a server may quote it back: as itself, percent-encoded (from a URL), and escaped inside a JSON
 * string (a quote or backslash in the key), which is how it stands in the body text before parsing.
 */
function quotedForms(secret: string): Set<string> {
  return new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
}

/**
 * Deep variant of {@link redact} for parsed bodies: every string in it, keys included, redacted. Returns the
 * value itself when no secret occurs in it.
 */
function redactValue(value: unknown, secrets: readonly string[] | undefined): unknown {
  if (!secrets || secrets.length === 0) return value;
  if (typeof value === 'string') return redact(value, secrets);
  if (value === null || typeof value !== 'object') return value;
  let changed = false;
  const redacted = (item: unknown) => {
    const out = redactValue(item, secrets);
    if (out !== item) changed = true;
    return out;
  };
  const out = Array.isArray(value)
    ? value.map(redacted)
    : Object.fromEntries(Object.entries(value).map(([key, item]) => [redacted(key) as string, redacted(item)]));
  return changed ? out : value;
}
