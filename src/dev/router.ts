import { isLoopbackUrl } from '../config/index.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ErrorStyle, errorBody, HttpError, parseJson, readBody, sendJson } from './http.js';

/** What a handler gets: the request, the response, the path parameters and lazy body readers. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  url: URL;
  params: Record<string, string>;
  /** The raw body (read once, bounded). */
  body(): Promise<Buffer>;
  /** The bound on a body, in bytes: a handler that decompresses one holds the decompressed size to it too. */
  maxBodyBytes: number;
  /** The body parsed as JSON; a 422 when it is not JSON. */
  json(): Promise<unknown>;
}

/** A handler writes the response itself, or throws an {@link HttpError}. */
export type Handler = (ctx: RequestContext) => Promise<void> | void;

/** One entry of the route table. */
export interface Route {
  method: string;
  /**
   * A path with `{name}` placeholders, each matching one segment. A request with a trailing slash goes to a
   * route whose path ends in one, if any matches, else to the route without it.
   */
  path: string;
  handler: Handler;
  /** False for the routes the real services serve without a key (health, version). Default true. */
  auth?: boolean;
  /** How errors on this route are worded. Default `fastapi`. */
  errors?: ErrorStyle;
}

/** Decides whether a request may proceed; throws a 401 {@link HttpError} otherwise. */
export type AuthCheck = (req: IncomingMessage) => void;

interface CompiledRoute extends Route {
  segments: string[];
}

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

function match(route: CompiledRoute, segments: string[]): Record<string, string> | undefined {
  if (route.segments.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const pattern = route.segments[i]!;
    const actual = segments[i]!;
    if (pattern.startsWith('{') && pattern.endsWith('}')) {
      params[pattern.slice(1, -1)] = decodeURIComponent(actual);
    } else if (pattern !== actual) {
      return undefined;
    }
  }
  return params;
}

const hasTrailingSlash = (path: string): boolean => path.length > 1 && path.endsWith('/');

/**
 * A small router over node:http: exact segments and `{param}` placeholders, 405 for a known path with
 * another method, 404 JSON for an unknown path, and one place where thrown errors become error bodies,
 * so no request can hang or crash the process.
 */
export class Router {
  private readonly routes: CompiledRoute[] = [];
  // Routes whose path ends in a slash: tried first for a request that ends in one, never for another.
  private readonly slashRoutes: CompiledRoute[] = [];

  constructor(
    private readonly auth: AuthCheck,
    private readonly maxBodyBytes: number,
    /**
     * Serving on this machine only: a request must name this machine in its `Host`. A web page the developer opens
     * could otherwise reach weft dev through a name of its own that resolves to 127.0.0.1 (DNS rebinding) and read
     * every trace and prompt.
     */
    private readonly localOnly = false,
    /** Where a failure of weft dev's own (a 500) is said: the developer sees why a request failed. */
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** Adds routes; earlier routes win when two patterns match. */
  add(...routes: Route[]): void {
    for (const route of routes) {
      (hasTrailingSlash(route.path) ? this.slashRoutes : this.routes).push({ ...route, segments: splitPath(route.path) });
    }
  }

  /** Serves one request; never rejects. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      sendJson(res, 400, { detail: 'Malformed request URL.' });
      return;
    }
    const segments = splitPath(url.pathname);
    // Errors are worded as the route that serves the path words them (its `errors`), even when the request is refused
    // before a handler runs: a 405 on `/v1/chat/completions` is OpenAI's. A path no route serves is FastAPI's.
    let style: ErrorStyle = 'fastapi';
    const candidates = hasTrailingSlash(url.pathname) ? [...this.slashRoutes, ...this.routes] : this.routes;
    try {
      let found: { route: CompiledRoute; params: Record<string, string> } | undefined;
      let pathKnown = false;
      for (const route of candidates) {
        let params: Record<string, string> | undefined;
        try {
          params = match(route, segments);
        } catch {
          // The path is this route's but for its encoding: worded as the route words its errors (a trace route's `{reason}`).
          style = route.errors ?? 'fastapi';
          throw new HttpError(400, 'Malformed percent-encoding in the request path.');
        }
        if (!params) continue;
        // Until a route serves the request, the path's first route words a refusal (a 405).
        if (!pathKnown) style = route.errors ?? 'fastapi';
        pathKnown = true;
        if (route.method === method || (method === 'HEAD' && route.method === 'GET')) {
          found = { route, params };
          break;
        }
      }
      if (!found) {
        if (pathKnown) throw new HttpError(405, `Method Not Allowed: ${method} ${url.pathname}`);
        throw new HttpError(404, `Not Found: ${method} ${url.pathname} is not a route of weft dev.`);
      }
      const { route, params } = found;
      style = route.errors ?? 'fastapi';
      refuseForeignPage(req);
      if (this.localOnly) refuseForeignHost(req);
      if (route.auth !== false) this.auth(req);
      let bodyPromise: Promise<Buffer> | undefined;
      const body = () => {
        bodyPromise ??= readBody(req, this.maxBodyBytes);
        return bodyPromise;
      };
      const json = async () => {
        refuseNonJson(req);
        return parseJson(await body());
      };
      await route.handler({ req, res, method, url, params, body, maxBodyBytes: this.maxBodyBytes, json });
    } catch (error) {
      this.fail(res, error, style);
    }
  }

  private fail(res: ServerResponse, error: unknown, style: ErrorStyle): void {
    const httpError =
      error instanceof HttpError
        ? error
        : new HttpError(500, `Internal error in weft dev: ${(error as Error)?.message ?? String(error)}`, {
            type: 'server_error',
          });
    if (httpError.status >= 500) this.log(`answered ${httpError.status}: ${httpError.message}`);
    if (res.headersSent) {
      // A stream already started: all we can do is end it.
      res.end();
      return;
    }
    // A body that was refused (413) or is still arriving would keep the socket busy; close after answering.
    const headers: Record<string, string> = httpError.status === 413 ? { connection: 'close' } : {};
    sendJson(res, httpError.status, errorBody(httpError, style), headers);
  }
}

/**
 * A page in the developer's browser may POST `text/plain` (or a form) to 127.0.0.1 without asking first (no CORS
 * preflight): a JSON route reads a body only when the request says it is JSON, as FastAPI does (refuseForeignPage
 * refuses such a page too, where the browser names it). weft's own client, `openai` and `curl -H 'content-type: …'`
 * say so.
 */
function refuseNonJson(req: IncomingMessage): void {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))) return;
  throw new HttpError(415, `Unsupported Media Type: a JSON body needs \`Content-Type: application/json\`, got ${type ? `\`${type}\`` : 'none'}.`);
}

/**
 * Refuses a request a web page of another site makes: a browser names the page's origin in `Origin` (and says
 * `Sec-Fetch-Site: cross-site`), and may send some requests (a form, `text/plain`, OTLP bytes as `text/plain`) without
 * asking first. weft's clients, `openai` and OTLP exporters send neither header; a page served from this machine
 * (`http://localhost:3000`) may call it.
 */
function refuseForeignPage(req: IncomingMessage): void {
  const origin = req.headers.origin;
  // No origin to read (none, or `null` from a sandboxed or file: page): the browser's cross-site mark decides.
  const local = origin === undefined || origin === 'null' ? req.headers['sec-fetch-site'] !== 'cross-site' : isLoopbackOrigin(origin);
  if (!local) throw new HttpError(403, `weft dev answers no web page of another site (Origin \`${String(origin).slice(0, 100)}\`).`);
}

/** Whether `origin` (scheme, host and port) is this machine; false for one that does not parse. */
function isLoopbackOrigin(origin: string): boolean {
  try {
    return isLoopbackUrl(origin);
  } catch {
    return false;
  }
}

/** Refuses a request whose `Host` is not this machine's (see Router's `localOnly`). */
function refuseForeignHost(req: IncomingMessage): void {
  const host = req.headers.host;
  if (host !== undefined && !isLoopbackOrigin(`http://${host}`)) throw new HttpError(421, `weft dev serves this machine only: Host \`${host.slice(0, 100)}\` is not localhost, 127.0.0.1 or [::1].`);
}
