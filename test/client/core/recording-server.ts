import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as the server received it. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string, still percent-encoded as sent. */
  path: string;
  /** Query parameters; repeated keys collect into arrays. */
  query: Record<string, string | string[]>;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** The body parsed as JSON (undefined when empty). */
  json(): unknown;
}

export type Handler = (req: RecordedRequest, res: ServerResponse, raw: IncomingMessage) => unknown;

export interface RecordingServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  /** Replaces how the server answers; the default answers `200 {}`. */
  handle(handler: Handler): void;
  /** Resolves once the server has received `count` requests in all (at once if it has). */
  requestArrived(count?: number): Promise<void>;
  /** Resolves when the next request's connection closes (to see that a client hung up). */
  connectionClosed(): Promise<void>;
  close(): Promise<void>;
}

/** A loopback HTTP server on 127.0.0.1:0 that records every request and answers with the current handler. */
export async function startRecordingServer(initial?: Handler): Promise<RecordingServer> {
  let handler: Handler = initial ?? ((_req, res) => sendJson(res, 200, {}));
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const closeWaiters: Array<() => void> = [];
  const arrivalWaiters: Array<{ count: number; resolve: () => void }> = [];

  const server: Server = createServer(async (raw, res) => {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of raw) chunks.push(chunk as Buffer);
    } catch {
      // The client gave up mid-body (e.g. its body stream failed): there is no request to record or answer.
      return;
    }
    const url = new URL(raw.url ?? '/', 'http://localhost');
    const query: Record<string, string | string[]> = {};
    for (const [key, value] of url.searchParams) {
      const prev = query[key];
      query[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
    }
    const body = Buffer.concat(chunks);
    const recorded: RecordedRequest = {
      method: raw.method ?? '',
      path: (raw.url ?? '/').split('?')[0] ?? '/',
      query,
      headers: raw.headers,
      body,
      json: () => (body.length === 0 ? undefined : JSON.parse(body.toString('utf8'))),
    };
    requests.push(recorded);
    for (const waiter of arrivalWaiters.filter((w) => requests.length >= w.count)) {
      arrivalWaiters.splice(arrivalWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    const waiter = closeWaiters.shift();
    if (waiter) raw.socket.once('close', waiter);
    try {
      await handler(recorded, res, raw);
    } catch (error) {
      if (!res.headersSent) sendJson(res, 599, { detail: String(error) });
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      handler = next;
    },
    requestArrived(count = 1) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise<void>((resolve) => arrivalWaiters.push({ count, resolve }));
    },
    connectionClosed() {
      return new Promise<void>((resolve) => closeWaiters.push(resolve));
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers with a JSON body. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
