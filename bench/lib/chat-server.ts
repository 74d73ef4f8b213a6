import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { listenOnLoopback } from './loopback-server.js';

/** A loopback OpenAI-compatible chat-completions server, answering every request with one canned reply. */
export interface ChatServer {
  /** Base URL to hand to `new OpenAI({ baseURL })`, ending in `/v1`. */
  readonly baseURL: string;
  /** Requests answered so far. */
  readonly requests: () => number;
  close(): Promise<void>;
}

const canned = createRequire(import.meta.url)('../children/canned-chat.cjs') as {
  plainReply: string;
  streamedReply: (includeUsage: boolean) => { first: string; rest: string };
  JSON_HEADERS: Record<string, string>;
  SSE_HEADERS: Record<string, string>;
  STREAM_WORDS: number;
};

/** Number of content chunks in a streamed reply (besides the role, finish and usage chunks). */
export const STREAM_WORDS = canned.STREAM_WORDS;

function answer(req: IncomingMessage, res: ServerResponse, raw: string): void {
  if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
    return;
  }
  let body: { stream?: boolean; stream_options?: { include_usage?: boolean } };
  try {
    body = JSON.parse(raw);
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"bad json"}}');
    return;
  }
  if (body.stream) {
    // The first chunk goes out on its own so that time to first chunk measures the client side, not the
    // size of one big write; the rest follows on the next turn of the server's event loop.
    res.writeHead(200, canned.SSE_HEADERS);
    const { first, rest } = canned.streamedReply(body.stream_options?.include_usage === true);
    res.write(first);
    setImmediate(() => res.end(rest));
    return;
  }
  res.writeHead(200, canned.JSON_HEADERS).end(canned.plainReply);
}

/** Starts the server on 127.0.0.1, port 0. */
export async function startChatServer(): Promise<ChatServer> {
  let count = 0;
  // A child's kept-alive connection must outlast the other children's slices, or it reconnects inside a timed one.
  const server = await listenOnLoopback(
    (req, res, body) => {
      count++;
      answer(req, res, body.toString('utf8'));
    },
    { keepAliveTimeoutMs: 60_000 },
  );
  return { baseURL: `${server.origin}/v1`, requests: () => count, close: server.close };
}
