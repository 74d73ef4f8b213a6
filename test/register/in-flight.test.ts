import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { register, type WeftHandle } from 'weft';
import { decodeTraceExport } from '../../src/otlp/index.js';

/** A trace service that answers each request with `statuses[i]` (then 200), `delayMs` after it arrived. */
async function slowService(statuses: number[], delayMs: number) {
  const received: string[][] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const index = received.length;
      received.push(decodeTraceExport(Buffer.concat(chunks)).spans.map((s) => s.name));
      setTimeout(() => {
        res.writeHead(statuses[index] ?? 200, { 'content-type': 'application/json' });
        res.end('{}');
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function endSpan(name: string): void {
  trace.getTracer('t').startSpan(name).end();
}

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

let service: Awaited<ReturnType<typeof slowService>> | undefined;
let weft: WeftHandle | undefined;
afterEach(async () => {
  await weft?.shutdown();
  await service?.close();
  weft = undefined;
  service = undefined;
});

function start(url: string): WeftHandle {
  // The batch timer sends each span at once, so that a request is in flight when the test flushes or shuts down.
  return register({ baseUrl: url, project: 'acme/in-flight', instrumentations: [], flushOnExit: false, batch: { scheduledDelayMillis: 1 } });
}

describe('forceFlush()', () => {
  it('resolves only once the export already in flight has settled', async () => {
    service = await slowService([], 300);
    weft = start(service.url);
    endSpan('in-flight');
    await waitUntil(() => service!.received.length === 1);

    await weft.forceFlush();
    expect(weft.stats).toMatchObject({ spansEnded: 1, spansExported: 1, spansDropped: 0 });
  });
});

describe('shutdown()', () => {
  it('counts a span whose export was in flight and failed as dropped, so that every span is accounted for', async () => {
    service = await slowService([500], 300);
    const handle = start(service.url);
    weft = handle;
    endSpan('in-flight');
    await waitUntil(() => service!.received.length === 1);

    await handle.shutdown();
    const { spansEnded, spansExported, spansDropped } = handle.stats;
    expect(spansEnded).toBe(1);
    expect(spansExported + spansDropped).toBe(spansEnded);
  });

  it('gives spans kept for a retry one last attempt before it gives up on them', async () => {
    service = await slowService([500], 0);
    const handle = start(service.url);
    weft = handle;
    endSpan('kept-for-retry');
    await waitUntil(() => handle.stats.exportFailures === 1);

    await handle.shutdown();
    expect(handle.stats).toMatchObject({ spansEnded: 1, spansExported: 1, spansDropped: 0 });
    expect(service.received.at(-1)).toEqual(['kept-for-retry']);
  });
});
