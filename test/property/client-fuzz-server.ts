/**
 * The adversarial peer of the client's property tests: a real HTTP server on 127.0.0.1 that answers each request
 * with the next scripted {@link Reply}, written in the TCP pieces the script says, possibly cut short (socket
 * destroyed mid-body). It counts requests and keeps the sockets it has, so that a property can check that the
 * client closed them all.
 */
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { Client, type ClientOptions } from 'weft';
import { API_KEY, API_KEY_FRAGMENT_LENGTH } from './client-fuzz-arbitraries.js';

/** One scripted answer. */
export interface Reply {
  status: number;
  headers: Record<string, string | string[]>;
  /** The body as meant, before any content coding. */
  body: Buffer;
  /** Sent gzip-encoded with `content-encoding: gzip`. */
  gzip?: boolean;
  /** Send a `content-length` (else chunked). */
  contentLength?: boolean;
  /** A 103 Early Hints before the answer. */
  earlyHints?: boolean;
  /** Byte offsets (into the wire body) where one TCP write ends and the next starts. */
  splits?: number[];
  /** Destroy the socket after this many wire bytes of the body: the body is cut short. */
  cutAt?: number;
  /** Never answer: keep the request hanging (for abort and close properties). */
  hang?: boolean;
  /** Stop writing after this many wire bytes of the body until `resume` settles (the client has read them). */
  pauseAt?: number;
  resume?: Promise<void>;
  /** Called when the server has written up to `pauseAt` and waits. */
  onPause?: () => void;
}

/** A request as the server saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FuzzServer {
  origin: string;
  requests: SeenRequest[];
  /** Resolves when the server has received the next request (whole). */
  requestArrived(): Promise<void>;
  /** Script the next answers; when they run out, the last one is repeated. */
  script(replies: Reply[]): void;
  /** Sockets the server still holds open. */
  openSockets(): number;
  /** Resolves when the server holds no open socket, or rejects after `ms` saying how many remain. */
  allSocketsClosed(ms?: number): Promise<void>;
  close(): Promise<void>;
}

/** The bytes as they go on the wire (gzip applied). */
export function wireBody(reply: Reply): Buffer {
  return reply.gzip ? gzipSync(reply.body) : reply.body;
}

/** Statuses whose answer carries no body, whatever the server writes (RFC 9110). */
export function bodiless(status: number): boolean {
  return status === 204 || status === 304;
}

export async function startFuzzServer(): Promise<FuzzServer> {
  let replies: Reply[] = [];
  let next = 0;
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const closeWaiters = new Set<() => void>();
  let arrivalWaiters: Array<() => void> = [];

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => {});
    res.on('error', () => {});
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      for (const waiter of arrivalWaiters.splice(0)) waiter();
      const reply = replies[Math.min(next, replies.length - 1)];
      next++;
      if (!reply || reply.hang) return;
      void answer(reply, res.socket as Socket, res).catch(() => res.destroy());
    });
  });

  async function answer(reply: Reply, socket: Socket, res: import('node:http').ServerResponse): Promise<void> {
    const bytes = bodiless(reply.status) ? Buffer.alloc(0) : wireBody(reply);
    if (reply.earlyHints) res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
    const headers: Record<string, string | string[]> = { ...reply.headers };
    if (reply.gzip) headers['content-encoding'] = 'gzip';
    if (reply.contentLength && !bodiless(reply.status)) headers['content-length'] = String(bytes.length);
    res.writeHead(reply.status, headers);
    res.flushHeaders();
    const end = reply.cutAt === undefined ? bytes.length : Math.min(reply.cutAt, bytes.length);
    const cuts = [...new Set([...(reply.splits ?? []), ...(reply.pauseAt !== undefined ? [reply.pauseAt] : [])].filter((s) => s > 0 && s < end))].sort(
      (a, b) => a - b,
    );
    let start = 0;
    for (const cut of [...cuts, end]) {
      if (start === reply.pauseAt) {
        reply.onPause?.();
        await reply.resume;
      }
      if (cut > start) {
        await new Promise<void>((resolve) => res.write(bytes.subarray(start, cut), () => resolve()));
        // A turn of the event loop between writes, so that each is its own TCP segment as far as loopback allows.
        await new Promise((resolve) => setImmediate(resolve));
      }
      start = cut;
    }
    if (reply.cutAt !== undefined && reply.cutAt < bytes.length) {
      socket.destroy();
      return;
    }
    res.end();
  }

  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) for (const waiter of closeWaiters) waiter();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    script(list) {
      replies = list;
      next = 0;
      arrivalWaiters = [];
      requests.length = 0;
    },
    openSockets: () => sockets.size,
    requestArrived: () => new Promise<void>((resolve) => arrivalWaiters.push(resolve)),
    allSocketsClosed(ms = 3000) {
      if (sockets.size === 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          closeWaiters.delete(done);
          resolve();
        };
        const timer = setTimeout(() => {
          closeWaiters.delete(done);
          reject(new Error(`the client left ${sockets.size} socket(s) open after close()`));
        }, ms);
        closeWaiters.add(done);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Every string an error shows: message, stack, JSON, each own property, down its cause chain. */
export function errorTexts(error: unknown): string[] {
  const texts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (current instanceof Error) {
      texts.push(current.message, current.stack ?? '');
      for (const key of Object.getOwnPropertyNames(current)) {
        const value = (current as unknown as Record<string, unknown>)[key];
        texts.push(typeof value === 'string' ? value : safeJson(value));
      }
    }
    texts.push(safeJson(current), String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return texts;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/** The first fragment of `secret` (of at least {@link API_KEY_FRAGMENT_LENGTH} characters) that `texts` show, if any. */
export function leakedFragment(texts: string[], secret: string): string | undefined {
  for (let start = 0; start + API_KEY_FRAGMENT_LENGTH <= secret.length; start++) {
    const fragment = secret.slice(start, start + API_KEY_FRAGMENT_LENGTH);
    if (texts.some((t) => t.includes(fragment))) return fragment;
  }
  return undefined;
}

/**
 * A fuzz server for the test file that calls this at its top level, started before its tests and closed after them
 * (`server()` reads it once started, `client()` makes a client of it), and the rejections left unhandled meanwhile (`unhandled`), none of which any
 * test may leave behind.
 */
export function useFuzzServer(): { server: () => FuzzServer; client: (options?: ClientOptions) => Client; unhandled: unknown[] } {
  let server: FuzzServer | undefined;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeAll(async () => {
    server = await startFuzzServer();
    process.on('unhandledRejection', onUnhandled);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await server?.close();
  });
  afterEach(() => {
    expect(unhandled).toEqual([]);
  });
  const started = () => {
    if (!server) throw new Error('the fuzz server is not started yet');
    return server;
  };
  // A client of all three services at the server, with the fuzzed key; `options` add to these or replace them.
  const client = (options: ClientOptions = {}) =>
    new Client({
      apiKey: API_KEY,
      baseUrl: started().origin,
      inferenceBaseUrl: `${started().origin}/v1`,
      trainingBaseUrl: `${started().origin}/training/v1`,
      project: 'team/proj',
      ...options,
    });
  return { server: started, client, unhandled };
}
