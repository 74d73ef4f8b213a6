import { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { Agent } from 'node:http';
import { Server } from 'node:net';
import { Stream } from 'node:stream';
import { isObjectRecord } from '../is-object-record.js';
import { isCredentialHeader } from '../secrets.js';

/**
 * How an op records Node's I/O objects, which hold internals rather than data, and an HTTP request handed to it (an
 * op around a request handler is common): a request as its method, URL, headers and what a framework parsed of it;
 * a response, a socket, a server, a stream or a child process as its class name; any other event emitter (an app's
 * own class) as its fields, without the emitter's bookkeeping. Undefined for everything else.
 */
export function describeNodeIo(value: object, redacted: string): { replaced: unknown } | { named: true } | { without: readonly string[] } | undefined {
  if (!(value instanceof EventEmitter)) return undefined;
  const request = value as HttpRequestLike;
  if (value instanceof Stream && typeof request.method === 'string' && typeof request.url === 'string') {
    return { replaced: requestSummary(request, redacted) };
  }
  if (value instanceof Stream && typeof request.statusCode === 'number' && isObjectRecord(request.headers)) {
    return { replaced: { statusCode: request.statusCode, statusMessage: request.statusMessage, headers: headersOf(request.headers, redacted) } };
  }
  if (value instanceof Stream || value instanceof Server || value instanceof Agent || value instanceof ChildProcess) {
    return { named: true };
  }
  return { without: EMITTER_FIELDS };
}

/** The fields every EventEmitter has, which say nothing of the app's object. */
const EMITTER_FIELDS: readonly string[] = ['_events', '_eventsCount', '_maxListeners'];

/** A server's request (node:http's IncomingMessage, node:http2's request), with what Express or Koa put on it. */
interface HttpRequestLike {
  method?: unknown;
  url?: unknown;
  statusCode?: unknown;
  statusMessage?: unknown;
  headers?: unknown;
  body?: unknown;
  params?: unknown;
  query?: unknown;
}

function requestSummary(request: HttpRequestLike, redacted: string): Record<string, unknown> {
  const summary: Record<string, unknown> = {
    method: request.method,
    url: urlWithoutCredentials(request.url as string, redacted),
    headers: isObjectRecord(request.headers) ? headersOf(request.headers, redacted) : undefined,
  };
  // What a framework parsed (Express's body-parser, its router, Koa's bodyparser): the data the handler works on.
  for (const key of ['params', 'query', 'body'] as const) {
    if (request[key] !== undefined) summary[key] = request[key];
  }
  return summary;
}

/**
 * `/cb?code=1&access_token=…` with the values of credential-named parameters redacted, named as a credential header
 * may be: `key` and `api_key` too (Google's APIs and many others take the key as `?key=`).
 */
function urlWithoutCredentials(url: string, redacted: string): string {
  const query = url.indexOf('?');
  if (query === -1) return url;
  const params = url.slice(query + 1).split('&');
  let changed = false;
  const kept = params.map((param) => {
    const eq = param.indexOf('=');
    if (eq === -1 || !isCredentialHeader(safeDecode(param.slice(0, eq)))) return param;
    changed = true;
    return `${param.slice(0, eq + 1)}${encodeURIComponent(redacted)}`;
  });
  return changed ? `${url.slice(0, query + 1)}${kept.join('&')}` : url;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

function headersOf(headers: Record<string, unknown>, redacted: string): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) kept[name] = isCredentialHeader(name) ? redacted : value;
  return kept;
}
