import diagnostics from 'node:diagnostics_channel';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { afterEach, expect, it } from 'vitest';
import { register, type WeftHandle } from 'weft';
import { decodeTraceExport } from '../../src/otlp/index.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

let receiver: OtlpReceiver | undefined;
let server: Server | undefined;
let weft: WeftHandle | undefined;
afterEach(async () => {
  await weft?.shutdown();
  await receiver?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  weft = receiver = server = undefined;
});

function start(baseUrl: string, maxExportBatchSize: number): WeftHandle {
  weft = register({
    baseUrl,
    project: 'acme/backlog',
    instrumentations: [],
    flushOnExit: false,
    // A short export timeout: a refused request is not retried within the export, only kept.
    batch: { maxExportBatchSize, exportTimeoutMillis: 500, scheduledDelayMillis: 60_000 },
  });
  return weft;
}

function endSpans(...names: string[]): void {
  for (const name of names) trace.getTracer('t').startSpan(name).end();
}

it('sends spans kept for a retry in requests no larger than maxExportBatchSize', async () => {
  receiver = await startOtlpReceiver({ reply: (_, index) => (index === 0 ? { status: 503 } : { status: 200 }) });
  const handle = start(receiver.url, 2);
  endSpans('a', 'b');
  await handle.forceFlush();
  expect(handle.stats.exportFailures).toBe(1);

  endSpans('c', 'd');
  await handle.forceFlush();
  expect(handle.stats).toMatchObject({ spansEnded: 4, spansExported: 4, spansDropped: 0 });
  expect(receiver.spans().map((s) => s.name).sort()).toEqual(['a', 'b', 'c', 'd']);
  for (const request of receiver.requests) expect(request.spans.length).toBeLessThanOrEqual(2);
});

it('sends held spans again once the service accepted a request after asking to wait', async () => {
  // Two parallel requests: the first to arrive is asked to wait ten minutes, the second is accepted once weft has
  // taken that answer in (answers on two sockets may be read in either order, so the server waits to see it).
  const names: string[][] = [];
  const acceptOnceRefusalSeen = (res: ServerResponse) => {
    if ((weft?.stats.exportFailures ?? 0) >= 1) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    else setTimeout(() => acceptOnceRefusalSeen(res), 5);
  };
  server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const index = names.length;
      names.push(decodeTraceExport(Buffer.concat(chunks)).spans.map((s) => s.name));
      if (index === 0) res.writeHead(429, { 'retry-after': '600' }).end('{}');
      else acceptOnceRefusalSeen(res);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const handle = start(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 1);
  endSpans('x', 'y');
  await handle.forceFlush();
  expect(handle.stats).toMatchObject({ spansExported: 1, exportFailures: 1 });

  await handle.shutdown();
  expect(handle.stats).toMatchObject({ spansEnded: 2, spansExported: 2, spansDropped: 0 });
});

it('sends a backlog one request per turn of the event loop, so that the app runs between them', async () => {
  let down = true;
  receiver = await startOtlpReceiver({ reply: () => (down ? { status: 503 } : { status: 200 }) });
  const handle = start(receiver.url, 2);
  endSpans('a', 'b', 'c', 'd', 'e', 'f');
  await handle.forceFlush();
  expect(handle.stats).toMatchObject({ spansExported: 0, spansDropped: 0 });

  // Back again: the flush sends the six kept spans in three requests of two. As the first starts, the app queues a
  // turn of its own: it must come before the last request starts, not after all of them (encoded in one go, a large
  // backlog held the event loop for tens of milliseconds).
  down = false;
  const order: string[] = [];
  const onRequest = ({ request }: { request: { path: string } }) => {
    if (!request.path.endsWith('/otel/v1/traces')) return;
    if (order.length === 0) setImmediate(() => order.push('app'));
    order.push('request');
  };
  diagnostics.subscribe('http.client.request.start', onRequest as (message: unknown) => void);
  try {
    await handle.forceFlush();
  } finally {
    diagnostics.unsubscribe('http.client.request.start', onRequest as (message: unknown) => void);
  }
  expect(order.filter((o) => o === 'request')).toHaveLength(3);
  expect(order.indexOf('app')).toBeGreaterThan(-1);
  expect(order.indexOf('app')).toBeLessThan(order.lastIndexOf('request'));
  expect(handle.stats).toMatchObject({ spansEnded: 6, spansExported: 6, spansDropped: 0 });
  expect(receiver.spans().map((s) => s.name).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
});
