import { quotedHeader } from './error-body.js';
import { WeftParseError } from './errors.js';
import type { RawResponse, RequestOptions, ResponseHeaders } from './types.js';

// What a response's Content-Type says, and the error of a 2xx body that is not what was asked for.

/**
 * The error of a 2xx body that is not what was asked for (`expected`: JSON, or an event stream). It names the status
 * and the content type, and for an HTML page says what it usually means; it never quotes the body, which may echo
 * the request's credentials, and quotes its content type with `secrets` (the request's key) replaced.
 */
export function unexpectedBodyError(
  options: Pick<RequestOptions, 'method' | 'path'>,
  response: Pick<RawResponse, 'status' | 'headers'>,
  cause?: unknown,
  expected = 'JSON',
  secrets?: readonly string[],
): WeftParseError {
  const { method, path } = options;
  // The content type is the server's text, quoted in the message and kept on the error: one that echoes the request
  // (`text/plain; token=<key>`) would otherwise show the key to whoever logs the error.
  const given = firstHeader(response.headers['content-type']);
  const contentType = given === undefined ? undefined : quotedHeader(given, secrets);
  const what = contentType ? `a ${contentType.split(';')[0]?.trim()} body` : 'a body';
  const hint = isHtml(response.headers) ? ' (an HTML page: is the base URL that of the service, not of a web app or a login page?)' : '';
  return new WeftParseError(`weft: ${method} ${path} answered ${response.status} with ${what} that is not ${expected}${hint}`, method, path, {
    cause,
    status: response.status,
    contentType,
  });
}

/** Whether a response's `Content-Type` says HTML: a web page, not a service's answer. */
export function isHtml(headers: ResponseHeaders): boolean {
  return /\bhtml\b/i.test(firstHeader(headers['content-type']) ?? '');
}

/** Whether a response's `Content-Type` says JSON. */
export function isJsonContentType(headers: ResponseHeaders): boolean {
  const type = firstHeader(headers['content-type']) ?? '';
  return /\bjson\b/i.test(type);
}

/** The first value of a header undici may give as an array (a repeated header). */
export function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
