import { createServer } from 'node:net';

/** A port on 127.0.0.1 that nothing listens on: bound once, then released. A trace backend that refuses connections. */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
