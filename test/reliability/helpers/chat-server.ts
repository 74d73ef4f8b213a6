import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Models the reliability chat server understands; each picks a behaviour, so one server serves every case.
 * - any other model: a normal reply whose text echoes the number and size of the messages, so that a change
 *   to what the app sent shows in what it gets back (other request fields, e.g. `stream_options`, may vary).
 * - `tools`: a reply with a tool call whose arguments are not JSON.
 * - `malformed-stream`: with `stream: true`, a stream whose second event is not JSON.
 * - `huge`: a 10 MB reply (streamed or not).
 * - `unauthorized`: a 401, worded like OpenAI's, that does not repeat the key.
 */
export const MODELS = { tools: 'tools', malformedStream: 'malformed-stream', huge: 'huge', unauthorized: 'unauthorized' } as const;

const HUGE_TEXT = 'x'.repeat(10 * 1024 * 1024);

export interface ChatRequestSeen {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ReliabilityChatServer {
  /** Base URL for `new OpenAI({ baseURL })`. */
  baseURL: string;
  requests: ChatRequestSeen[];
  close(): Promise<void>;
}

function completion(model: string, content: string | null, extra: object = {}, finish = 'stop'): object {
  return {
    id: 'chatcmpl-rel',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null, ...extra }, finish_reason: finish, logprobs: null }],
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  };
}

function event(model: string, delta: object, finish: string | null): string {
  const chunk = { id: 'chatcmpl-rel', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [{ index: 0, delta, finish_reason: finish }] };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

function usageEvent(model: string): string {
  const chunk = {
    id: 'chatcmpl-rel',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [],
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** Starts the server on 127.0.0.1, port 0. */
export async function startReliabilityChatServer(): Promise<ReliabilityChatServer> {
  const requests: ChatRequestSeen[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (p: Buffer) => parts.push(p));
    req.on('end', () => {
      const raw = Buffer.concat(parts).toString('utf8');
      requests.push({ headers: req.headers, body: raw });
      let body: { model?: string; messages?: unknown[]; stream?: boolean; stream_options?: { include_usage?: boolean } };
      try {
        body = JSON.parse(raw);
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"invalid JSON body"}}');
        return;
      }
      const model = body.model ?? 'unknown';
      if (model === MODELS.unauthorized) {
        const error = { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' };
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
        return;
      }
      const messages = body.messages ?? [];
      const text = model === MODELS.huge ? HUGE_TEXT : `echo ${messages.length} messages, ${JSON.stringify(messages).length} bytes`;
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(event(model, { role: 'assistant', content: '' }, null));
        if (model === MODELS.malformedStream) {
          res.end('data: {"id": "chatcmpl-rel", "choices": [ this is not json\n\n');
          return;
        }
        res.write(event(model, { content: text.slice(0, text.length >> 1) }, null));
        res.write(event(model, { content: text.slice(text.length >> 1) }, null));
        res.write(event(model, {}, 'stop'));
        if (body.stream_options?.include_usage) res.write(usageEvent(model));
        res.end('data: [DONE]\n\n');
        return;
      }
      const reply =
        model === MODELS.tools
          ? completion(model, null, {
                tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{not json at all' } }],
              },
              'tool_calls',
            )
          : completion(model, text);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
