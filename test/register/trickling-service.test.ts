import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { type RunningChild, startNode } from '../helpers/child.js';

/** A trace service that accepts each export and then sends its answer one byte at a time, never finishing it. */
async function tricklingService() {
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 50);
      timers.add(timer);
      res.on('close', () => {
        clearInterval(timer);
        timers.delete(timer);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const timer of timers) clearInterval(timer);
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let service: Awaited<ReturnType<typeof tricklingService>> | undefined;
let app: RunningChild | undefined;
afterEach(async () => {
  app?.child.kill('SIGKILL');
  await service?.close();
  app = undefined;
  service = undefined;
});

it('times an export out on a service that trickles its answer: shutdown() counts the span and the process ends', async () => {
  service = await tricklingService();
  app = startNode(['test/register/fixtures/shutdown-stats.mjs'], {
    WEFT_BASE_URL: service.url,
    WEFT_PROJECT: 'acme/trickle',
    FIXTURE_EXPORT_TIMEOUT: '300',
  });
  let stdout = '';
  app.child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  await app.waitForOutput('stats');
  const stats = JSON.parse(/stats (.*)/.exec(stdout)![1]!);
  expect(stats).toEqual({ spansEnded: 1, spansExported: 0, spansDropped: 1 });
  // Nothing of weft's is left to hold the event loop.
  expect((await app.exited).code).toBe(0);
});
