import { createServer, type Server, type Socket, connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { type OtlpReceiver, startOtlpReceiver } from '../../helpers/otlp-receiver.js';

/**
 * A trace backend that fails at the connection level, in front of a real OTLP receiver, on one fixed port:
 * - `down()`: nothing listens on the port (connections are refused) and open connections are cut, as when the
 *   service is stopped;
 * - `hang()`: connections are accepted and requests read, never answered, as when the service is stuck;
 * - `up()`: the port listens again, and connections reach the receiver.
 */
export interface SwitchableBackend {
  /** Base URL to give `register({ baseUrl })`; the same whatever the state. */
  url: string;
  /** The receiver behind it: what got through. */
  receiver: OtlpReceiver;
  up(): Promise<void>;
  down(): Promise<void>;
  hang(): void;
  close(): Promise<void>;
}

export async function startSwitchableBackend(initially: 'up' | 'down' | 'hang'): Promise<SwitchableBackend> {
  const receiver = await startOtlpReceiver();
  let state: 'up' | 'hang' = 'up';
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => {});
  };
  const cutAll = () => {
    for (const socket of open) socket.destroy();
  };

  const server: Server = createServer((client) => {
    track(client);
    if (state === 'hang') {
      client.resume();
      return;
    }
    const upstream = connect(receiver.port, '127.0.0.1');
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const { port } = server.address() as AddressInfo;
  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      cutAll();
    });

  const backend: SwitchableBackend = {
    url: `http://127.0.0.1:${port}`,
    receiver,
    async up() {
      state = 'up';
      if (!server.listening) await listen(port);
    },
    async down() {
      await stopListening();
    },
    hang() {
      state = 'hang';
      // A kept-alive connection would otherwise still reach the receiver: the next request must open a new one.
      cutAll();
    },
    async close() {
      await stopListening();
      await receiver.close();
    },
  };
  if (initially === 'down') await backend.down();
  if (initially === 'hang') backend.hang();
  return backend;
}
