import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { type DecodedSpan, decodeTraceExport } from '../../src/otlp/index.js';

/** One export request as the receiver saw it. */
export interface ReceivedExport {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The headers as sent, names and values in turn: a header sent twice shows twice here. */
  rawHeaders: string[];
  body: Buffer;
  /** Spans decoded from the body; empty when the body did not decode. */
  spans: DecodedSpan[];
}

/**
 * What the receiver answers; `hang` accepts the request and never answers; `trickle` answers 200 and its headers,
 * then sends the body a byte at a time, never finishing it (its spans count as accepted).
 */
export type ReceiverReply = { status: number; headers?: Record<string, string>; body?: string | Uint8Array } | 'hang' | 'trickle';

export interface OtlpReceiverOptions {
  /** Decides the reply to the n-th request (0-based). Default: 200 with an empty JSON body. */
  reply?: (request: ReceivedExport, index: number) => ReceiverReply;
}

export interface OtlpReceiver {
  /** Base URL to give `register({ baseUrl })`; exports arrive at `${url}/otel/v1/traces`. */
  url: string;
  port: number;
  requests: ReceivedExport[];
  /** Every span from every request that was answered with a 2xx. */
  spans(): DecodedSpan[];
  /** Resolves once at least `count` spans were accepted; rejects after `timeoutMs`. */
  waitForSpans(count: number, timeoutMs?: number): Promise<DecodedSpan[]>;
  close(): Promise<void>;
}

/**
 * A loopback OTLP/HTTP trace receiver that decodes the real protobuf bodies with weft's own OTLP decoder
 * (the one `weft dev` uses), so tests assert on what actually crossed the wire.
 */
export async function startOtlpReceiver(options: OtlpReceiverOptions = {}): Promise<OtlpReceiver> {
  const requests: ReceivedExport[] = [];
  const accepted: DecodedSpan[] = [];
  const waiters = new Set<() => void>();
  const hanging = new Set<ServerResponse>();
  const trickling = new Set<NodeJS.Timeout>();

  const accept = (spans: DecodedSpan[]) => {
    accepted.push(...spans);
    for (const wake of waiters) wake();
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      let spans: DecodedSpan[] = [];
      try {
        spans = decodeTraceExport(body).spans;
      } catch {
        spans = [];
      }
      const received: ReceivedExport = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body,
        spans,
      };
      const index = requests.length;
      requests.push(received);
      const reply = options.reply?.(received, index) ?? { status: 200 };
      if (reply === 'hang') {
        hanging.add(res);
        return;
      }
      if (reply === 'trickle') {
        accept(spans);
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => res.write(' '), 50);
        trickling.add(timer);
        res.on('close', () => {
          clearInterval(timer);
          trickling.delete(timer);
        });
        return;
      }
      if (reply.status >= 200 && reply.status < 300) accept(spans);
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body ?? '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    spans: () => [...accepted],
    waitForSpans(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (accepted.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve([...accepted]);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${count} spans, received ${accepted.length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      for (const timer of trickling) clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Finds the one span with this name, failing loudly when there is not exactly one. */
export function spanNamed(spans: DecodedSpan[], name: string): DecodedSpan {
  const found = spans.filter((s) => s.name === name);
  if (found.length !== 1) {
    throw new Error(`expected one span named "${name}", found ${found.length}: ${spans.map((s) => s.name).join(', ')}`);
  }
  return found[0]!;
}
