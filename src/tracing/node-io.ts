import type { IncomingMessage } from 'node:http';
import { isCredentialHeader } from '../secrets.js';

/**
 * What an op records of an HTTP message handed to it (a server's request, a client's response): its method and URL,
 * or its status, and its headers, each credential header's value replaced by `redacted`. Walked field by field it
 * would be kilobytes of socket internals, and its `rawHeaders`, a flat list of names and values, would carry the
 * Authorization header's value under no name that says so.
 */
export function httpMessageSummary(message: IncomingMessage, redacted: string): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(message.headers)) headers[name] = isCredentialHeader(name) ? redacted : value;
  return message.method !== undefined
    ? { method: message.method, url: message.url, headers }
    : { statusCode: message.statusCode, statusMessage: message.statusMessage, headers };
}

