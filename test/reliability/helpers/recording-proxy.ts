import { createServer, type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request through the proxy and its answer, as they crossed the wire. */
export interface Exchange {
  method: string;
  path: string;
  /** The request's headers, without `Authorization`, the one place the API key belongs. */
  requestHeaders: IncomingHttpHeaders;
  /** The request's `Authorization` header, kept apart so that it is checked, not scanned. */
  authorization: string | undefined;
  requestBody: Buffer;
  status: number;
  responseHeaders: IncomingHttpHeaders;
  responseBody: Buffer;
}

export interface RecordingProxy {
  /** Origin to use in place of the target's. */
  url: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

/** Everything in `exchanges` but the `Authorization` headers, as text to scan (bodies read as latin1, byte for byte). */
export function exchangedText(exchanges: Exchange[]): string {
  return exchanges
    .map(
      (e) =>
        `${e.method} ${e.path}\n${JSON.stringify(e.requestHeaders)}\n${e.requestBody.toString('latin1')}\n` +
        `${e.status}\n${JSON.stringify(e.responseHeaders)}\n${e.responseBody.toString('latin1')}`,
    )
    .join('\n');
}

/**
 * A loopback HTTP proxy in front of `target` that passes every request and answer through unchanged (streams as
 * they come) and records both, so that a test can scan all the bytes an app exchanged with a service.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const origin = new URL(target);
  const exchanges: Exchange[] = [];
  const server = createServer((req, res) => {
    const { authorization, ...requestHeaders } = req.headers;
    const requestChunks: Buffer[] = [];
    const responseChunks: Buffer[] = [];
    const upstream = request(
      new URL(req.url ?? '/', origin),
      { method: req.method, headers: { ...req.headers, host: origin.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on('data', (chunk: Buffer) => {
          responseChunks.push(chunk);
          res.write(chunk);
        });
        answer.on('end', () => res.end());
        answer.on('close', () => {
          exchanges.push({
            method: req.method ?? '',
            path: req.url ?? '',
            requestHeaders,
            authorization,
            requestBody: Buffer.concat(requestChunks),
            status: answer.statusCode ?? 0,
            responseHeaders: answer.headers,
            responseBody: Buffer.concat(responseChunks),
          });
          // Cut short upstream: the client must see the answer break off, not end cleanly.
          if (!answer.complete) res.destroy();
        });
      },
    );
    upstream.on('error', () => res.destroy());
    // A client that stops reading (a stream it cancelled) ends the exchange upstream too.
    res.on('close', () => upstream.destroy());
    req.on('data', (chunk: Buffer) => {
      requestChunks.push(chunk);
      upstream.write(chunk);
    });
    req.on('end', () => upstream.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
