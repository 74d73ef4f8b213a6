import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP server of the bench on 127.0.0.1. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Closes the server and every connection to it, kept-alive ones included. */
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 (`port` 0, the default: a free one) and hands `handler` each request with its whole body: the
 * chat server, the OTLP sink and the trace backends of the bench are all this, with their own answers.
 * `keepAliveTimeoutMs`: how long an idle connection is kept (Node's default, 5 s, when not given).
 */
export async function listenOnLoopback(
  handler: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void,
  { port = 0, keepAliveTimeoutMs }: { port?: number; keepAliveTimeoutMs?: number } = {},
): Promise<LoopbackServer> {
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (p: Buffer) => parts.push(p));
    req.on('end', () => handler(req, res, Buffer.concat(parts)));
  });
  if (keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = keepAliveTimeoutMs;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
