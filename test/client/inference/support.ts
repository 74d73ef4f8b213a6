import type { ServerResponse } from 'node:http';
import { Client, HttpCore, InferenceClient, type InferenceClientOptions, type TrainingClient } from 'weft';

export const API_KEY = 'sk-test-SECRET-0123456789';

/** Fast retries, so a test that exercises them stays quick. */
const backoff = { initialDelayMs: 1, maxDelayMs: 5 };

const open: Array<{ close(): Promise<void> }> = [];

/** Closes every client the helpers below made. */
export async function closeClients(): Promise<void> {
  await Promise.all(open.splice(0).map((c) => c.close()));
}

function client(origin: string, project: string | undefined, projectHeader?: string): Client {
  const made = new Client({
    apiKey: API_KEY,
    baseUrl: origin,
    inferenceBaseUrl: `${origin}/v1`,
    trainingBaseUrl: `${origin}/v1`,
    backoff,
    ...(project ? { project } : {}),
    ...(projectHeader ? { inferenceProjectHeader: projectHeader } : {}),
  });
  open.push(made);
  return made;
}

/**
 * `client.inference` of a `new Client()` for a loopback server. Options the `Client` does not take (`tracing`)
 * build the `InferenceClient` over an `HttpCore` directly, as the `Client` does.
 */
export function inferenceClient(origin: string, options: InferenceClientOptions = { project: 'team/proj' }): InferenceClient {
  if (options.tracing !== undefined) {
    const core = new HttpCore({ baseUrl: `${origin}/v1`, apiKey: API_KEY, backoff });
    open.push(core);
    return new InferenceClient(core, options);
  }
  return client(origin, options.project, options.projectHeader).inference;
}

/** `client.training` of a `new Client()` for a loopback server. */
export function trainingClient(origin: string): TrainingClient {
  return client(origin, undefined).training;
}

/** A chat completion as the services send it. */
export function completion(content = 'Hello!'): Record<string, unknown> {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'meta-llama/Llama-3.1-8B-Instruct',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 },
  };
}

/** One chunk of a streamed completion. */
export function chunk(content: string | null, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'meta-llama/Llama-3.1-8B-Instruct',
    choices: content === null ? [] : [{ index: 0, delta: { content }, finish_reason: null }],
    ...extra,
  };
}

export const USAGE = { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 };

/** The SSE text of a complete stream: two content chunks, a usage chunk, `[DONE]`. */
export function sseText(): string {
  return [
    `data: ${JSON.stringify(chunk('Hel'))}\n\n`,
    ': keep-alive\n\n',
    `data: ${JSON.stringify(chunk('lo ✓'))}\n\n`,
    `data: ${JSON.stringify(chunk(null, { usage: USAGE }))}\n\n`,
    'data: [DONE]\n\n',
  ].join('');
}

/** Starts an SSE response. */
export function startSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

/** Writes `text` in pieces of `size` bytes, each its own TCP write, so events and characters split. */
export async function writeInPieces(res: ServerResponse, text: string, size: number): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) {
    res.write(bytes.subarray(i, i + size));
    await new Promise((resolve) => setImmediate(resolve));
  }
}
