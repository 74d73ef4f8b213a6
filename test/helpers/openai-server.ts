import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback OpenAI-compatible chat-completions server for tests and benchmarks. A script says what a call
 * returns; the server renders it as a JSON completion or as server-sent events depending on the request's
 * `stream`, and honours `stream_options.include_usage` exactly as OpenAI does (every chunk then carries
 * `usage: null`, and one last chunk with no choices carries the usage).
 */

/** One choice of a scripted reply. Arrays of strings are the pieces a stream sends one by one. */
export interface ScriptedChoice {
  content?: string | string[];
  reasoning?: string | string[];
  refusal?: string;
  toolCalls?: { id: string; name: string; arguments: string | string[] }[];
  finishReason: string;
}

/** A successful reply. */
export interface ScriptedCompletion {
  id?: string;
  model?: string;
  created?: number;
  choices: ScriptedChoice[];
  usage?: Record<string, unknown>;
  systemFingerprint?: string;
  /** Streams only: an `obfuscation` padding string on every chunk, after `usage`, as OpenAI's own streams have by default. */
  obfuscation?: string;
  /** Streams only: send this many chunks, then destroy the connection (a stream cut mid-way). */
  cutAfterChunks?: number;
  /** Streams only: send this many chunks, then keep the response open until the client goes away. */
  hangAfterChunks?: number;
  /** Streams only: send this many chunks, then an event that is not JSON, and end (a malformed stream). */
  malformedAfterChunks?: number;
  /** Non-streamed only: never answer; the response stays open until the client goes away. */
  hang?: boolean;
  /** Non-streamed only: send the headers and half the body, then drop the connection (the client's parse fails). */
  cutBody?: boolean;
  /**
   * Streams only: send the usage chunk even when `stream_options.include_usage` was not set, as the platform's
   * inference and training services do (it defaults to true there).
   */
  usageUnasked?: boolean;
  /**
   * Streams only, with usage asked for: the usage rides on the chunk that finishes the last choice, with no
   * usage-only chunk after it and no `usage: null` before it, as some OpenAI-compatible servers send it.
   */
  usageOnLastChoice?: boolean;
  /**
   * Streams only, with usage asked for: the usage-only chunk's `choices` is `null` (MiniMax) or left out (Fireworks,
   * DeepInfra) rather than `[]`.
   */
  usageChunkChoices?: 'null' | 'absent';
  /** Streams only: each choice's chunks in turn, rather than interleaved as OpenAI sends them with `n > 1`. */
  choiceAfterChoice?: boolean;
}

/** An error reply with an OpenAI error body. */
export interface ScriptedError {
  status: number;
  error: { message: string; type?: string; code?: string | null; param?: string | null };
  headers?: Record<string, string>;
}

export type ScriptedReply = ScriptedCompletion | ScriptedError;

/** A request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface OpenAIServer {
  /** Base URL to give the client, ending in `/v1`. */
  baseURL: string;
  port: number;
  requests: RecordedRequest[];
  /** Sets the reply for the following requests (a function sees each request). */
  reply(script: ScriptedReply | ((request: RecordedRequest, index: number) => ScriptedReply)): void;
  /** The chunks the server sent for the n-th request (streams only), as objects. */
  sentChunks(index: number): unknown[];
  close(): Promise<void>;
}

/** A short text answer with usage, the default reply. */
export const HELLO: ScriptedCompletion = {
  id: 'chatcmpl-hello',
  model: 'gpt-4o-mini-2024-07-18',
  choices: [{ content: ['Hello', ' there', '!'], finishReason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
};

export async function startOpenAIServer(initial: ScriptedReply = HELLO): Promise<OpenAIServer> {
  let script: ScriptedReply | ((request: RecordedRequest, index: number) => ScriptedReply) = initial;
  const requests: RecordedRequest[] = [];
  const sent = new Map<number, unknown[]>();

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}');
      } catch {
        // Left empty: the reply decides.
      }
      const request: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      const index = requests.push(request) - 1;
      const reply = typeof script === 'function' ? script(request, index) : script;
      if ('status' in reply) return sendError(res, reply);
      if (body.stream === true) {
        const asked = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage;
        const includeUsage = asked === true || (asked === undefined && reply.usageUnasked === true);
        const chunks = renderChunks(reply, includeUsage);
        sent.set(index, chunks);
        return sendStream(res, chunks, reply);
      }
      if (reply.hang) return;
      return sendJson(res, 200, renderCompletion(reply), {}, reply.cutBody === true);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    reply(next) {
      script = next;
    },
    sentChunks: (index) => sent.get(index) ?? [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const CREATED = 1_700_000_000;

function pieces(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The non-streamed body of a scripted reply. */
export function renderCompletion(reply: ScriptedCompletion): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: reply.id ?? 'chatcmpl-test',
    object: 'chat.completion',
    created: reply.created ?? CREATED,
    model: reply.model ?? 'gpt-4o-mini',
    choices: reply.choices.map((choice, index) => {
      const message: Record<string, unknown> = {
        role: 'assistant',
        content: choice.content === undefined ? null : pieces(choice.content).join(''),
        refusal: choice.refusal ?? null,
      };
      if (choice.reasoning !== undefined) message.reasoning_content = pieces(choice.reasoning).join('');
      if (choice.toolCalls) {
        message.tool_calls = choice.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: pieces(call.arguments).join('') },
        }));
      }
      return { index, message, logprobs: null, finish_reason: choice.finishReason };
    }),
  };
  if (reply.usage) body.usage = reply.usage;
  if (reply.systemFingerprint) body.system_fingerprint = reply.systemFingerprint;
  return body;
}

/** The chunks of a scripted reply; choices are interleaved, as OpenAI does with `n > 1`. */
export function renderChunks(reply: ScriptedCompletion, includeUsage: boolean): Record<string, unknown>[] {
  const perChoice = reply.choices.map((choice, index) => {
    const deltas: { delta: Record<string, unknown>; finish_reason: string | null }[] = [];
    deltas.push({ delta: { role: 'assistant', content: '', refusal: null }, finish_reason: null });
    for (const piece of pieces(choice.reasoning)) deltas.push({ delta: { reasoning_content: piece }, finish_reason: null });
    for (const piece of pieces(choice.content)) deltas.push({ delta: { content: piece }, finish_reason: null });
    if (choice.refusal) deltas.push({ delta: { refusal: choice.refusal }, finish_reason: null });
    (choice.toolCalls ?? []).forEach((call, callIndex) => {
      deltas.push({
        delta: { tool_calls: [{ index: callIndex, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] },
        finish_reason: null,
      });
      for (const piece of pieces(call.arguments)) {
        deltas.push({ delta: { tool_calls: [{ index: callIndex, function: { arguments: piece } }] }, finish_reason: null });
      }
    });
    deltas.push({ delta: {}, finish_reason: choice.finishReason });
    return deltas.map((d) => ({ index, ...d }));
  });
  const chunks: Record<string, unknown>[] = [];
  const longest = Math.max(0, ...perChoice.map((d) => d.length));
  const onLastChoice = includeUsage && reply.usageOnLastChoice === true;
  const inOrder = reply.choiceAfterChoice
    ? perChoice.flat()
    : Array.from({ length: longest }, (_, step) => perChoice.flatMap((deltas) => (deltas[step] ? [deltas[step]] : [])));
  for (const d of inOrder.flat()) {
    chunks.push(chunk(reply, [{ index: d.index, delta: d.delta, logprobs: null, finish_reason: d.finish_reason }], includeUsage && !onLastChoice));
  }
  if (onLastChoice && reply.usage) chunks.at(-1)!.usage = reply.usage;
  else if (includeUsage && reply.usage) {
    const usageChunk: Record<string, unknown> = { ...chunk(reply, [], false), usage: reply.usage };
    if (reply.usageChunkChoices === 'null') usageChunk.choices = null;
    if (reply.usageChunkChoices === 'absent') delete usageChunk.choices;
    chunks.push(usageChunk);
  }
  return chunks;
}

function chunk(reply: ScriptedCompletion, choices: unknown[], withNullUsage: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: reply.id ?? 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: reply.created ?? CREATED,
    model: reply.model ?? 'gpt-4o-mini',
  };
  if (reply.systemFingerprint) out.system_fingerprint = reply.systemFingerprint;
  out.choices = choices;
  if (withNullUsage) out.usage = null;
  if (reply.obfuscation !== undefined) out.obfuscation = reply.obfuscation;
  return out;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, cut = false): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-request-id': 'req_test_123',
    ...headers,
  });
  if (!cut) return void res.end(text);
  res.write(text.slice(0, text.length / 2));
  setImmediate(() => res.socket?.destroy());
}

function sendError(res: ServerResponse, reply: ScriptedError): void {
  sendJson(
    res,
    reply.status,
    { error: { type: 'invalid_request_error', code: null, param: null, ...reply.error } },
    reply.headers,
  );
}

function sendStream(res: ServerResponse, chunks: unknown[], reply: ScriptedCompletion): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': 'req_test_123' });
  const limit = reply.cutAfterChunks ?? reply.hangAfterChunks ?? reply.malformedAfterChunks ?? chunks.length;
  for (const c of chunks.slice(0, limit)) res.write(`data: ${JSON.stringify(c)}\n\n`);
  if (reply.malformedAfterChunks !== undefined) {
    res.end('data: {"id": "chatcmpl-test", "choices": [ this is not json\n\n');
    return;
  }
  if (reply.cutAfterChunks !== undefined) {
    // Flush what was written, then drop the connection without finishing the chunked body.
    setImmediate(() => res.socket?.destroy());
    return;
  }
  if (reply.hangAfterChunks !== undefined) return;
  res.end('data: [DONE]\n\n');
}
