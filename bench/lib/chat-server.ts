import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback OpenAI-compatible chat-completions server, answering every request with one canned reply. */
export interface ChatServer {
  /** Base URL to hand to `new OpenAI({ baseURL })`, ending in `/v1`. */
  readonly baseURL: string;
  /** Requests answered so far. */
  readonly requests: () => number;
  close(): Promise<void>;
}

const MODEL = 'gpt-4o-mini-2024-07-18';
const WORDS = 'The quick brown fox jumps over the lazy dog while the benchmark counts every chunk it sees'.split(' ');

// Replies are built once: the server's own cost must be the same, and small, for every configuration.
const plainReply = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: MODEL,
  choices: [
    { index: 0, message: { role: 'assistant', content: WORDS.join(' '), refusal: null }, finish_reason: 'stop', logprobs: null },
  ],
  usage: { prompt_tokens: 42, completion_tokens: WORDS.length, total_tokens: 42 + WORDS.length },
  system_fingerprint: 'fp_bench',
});

function chunk(delta: object, finish: string | null, usage?: object): string {
  const body = {
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: MODEL,
    system_fingerprint: 'fp_bench',
    choices: usage ? [] : [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    ...(usage ? { usage } : {}),
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

// The first chunk goes out on its own so that time to first chunk measures the client side, not the
// size of one big write; the rest follows on the next turn of the server's event loop.
const firstChunk = chunk({ role: 'assistant', content: '' }, null);
const restOfStream = [...WORDS.map((w, i) => chunk({ content: i === 0 ? w : ` ${w}` }, null)), chunk({}, 'stop')].join('');
const usageChunk = chunk({}, null, { prompt_tokens: 42, completion_tokens: WORDS.length, total_tokens: 42 + WORDS.length });
const done = 'data: [DONE]\n\n';

/** Number of content chunks in a streamed reply (besides the role, finish and usage chunks). */
export const STREAM_WORDS = WORDS.length;

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
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(firstChunk);
    const rest = restOfStream + (body.stream_options?.include_usage ? usageChunk : '') + done;
    setImmediate(() => res.end(rest));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(plainReply);
}

/** Starts the server on 127.0.0.1, port 0. */
export async function startChatServer(): Promise<ChatServer> {
  let count = 0;
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (p: Buffer) => parts.push(p));
    req.on('end', () => {
      count++;
      answer(req, res, Buffer.concat(parts).toString('utf8'));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
