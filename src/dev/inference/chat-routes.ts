import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { HttpError, sendJson } from '../http.js';
import type { Route } from '../router.js';
import { parseChatRequest } from './chat-request.js';
import type { Answer, ChatRequest, Usage } from './chat-types.js';
import { checkModelServed, checkProjectHeader } from './inference-checks.js';
import { answer, OFFLINE_MODEL_IDS, usageOf } from './offline-model.js';
import { tokenPieces } from './tokenizer.js';

function message(result: Answer) {
  return result.kind === 'text'
    ? { role: 'assistant', content: result.content, refusal: null }
    : { role: 'assistant', content: null, refusal: null, tool_calls: [result.call] };
}

function finishReason(result: Answer): string {
  return result.kind === 'text' ? result.finishReason : 'tool_calls';
}

function writeEvent(res: ServerResponse, data: unknown): void {
  res.write(`data: ${JSON.stringify(data)}\n\n`);
}

/** The deltas of one choice: role first, then one token per chunk, then the finish reason. */
function* deltas(result: Answer): Iterable<{ delta: Record<string, unknown>; finish_reason: string | null }> {
  if (result.kind === 'text') {
    yield { delta: { role: 'assistant', content: '' }, finish_reason: null };
    for (const piece of tokenPieces(result.content)) yield { delta: { content: piece }, finish_reason: null };
  } else {
    const { id, function: fn } = result.call;
    yield {
      delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id, type: 'function', function: { name: fn.name, arguments: '' } }] },
      finish_reason: null,
    };
    for (const piece of tokenPieces(fn.arguments)) {
      yield { delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] }, finish_reason: null };
    }
  }
  yield { delta: {}, finish_reason: finishReason(result) };
}

function stream(res: ServerResponse, request: ChatRequest, result: Answer, usage: Usage, choices: number): void {
  const base = { id: `chatcmpl-${randomUUID()}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: request.model };
  // Usage comes last unless the caller turns it off: the reference says the final usage chunk arrives by default.
  const includeUsage = request.stream_options?.include_usage !== false;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (let index = 0; index < choices; index++) {
    for (const d of deltas(result)) {
      writeEvent(res, { ...base, choices: [{ index, delta: d.delta, logprobs: null, finish_reason: d.finish_reason }], ...(includeUsage ? { usage: null } : {}) });
    }
  }
  if (includeUsage) writeEvent(res, { ...base, choices: [], usage });
  res.end('data: [DONE]\n\n');
}

/**
 * Answers one chat request from the offline model: the whole completion as JSON, or, with `stream: true`, SSE
 * chunks. Shared by the inference route and the training service's chat route, which validate differently.
 */
export function serveCompletion(res: ServerResponse, request: ChatRequest): void {
  const result = answer(request);
  const choices = request.n ?? 1;
  const usage = usageOf(request, result, choices);
  if (request.stream) {
    stream(res, request, result, usage, choices);
    return;
  }
  sendJson(res, 200, {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: Array.from({ length: choices }, (_, index) => ({
      index,
      message: message(result),
      logprobs: null,
      finish_reason: finishReason(result),
    })),
    usage,
  });
}

/**
 * The inference service's routes (`/v1/models`, `/v1/chat/completions`), served by the offline model, with
 * OpenAI-style errors: 401 for a malformed project header, 400 for a bad body, 404 for a model it does not
 * list. The training service's chat endpoint has its own route (`training/chat-route.ts`).
 */
export function chatRoutes(): Route[] {
  const completions: Route['handler'] = async (c) => {
    checkProjectHeader(c.req);
    let body: unknown;
    try {
      body = await c.json();
    } catch (error) {
      if (error instanceof HttpError && error.status === 422) {
        throw new HttpError(400, `We could not parse the JSON body of your request: ${error.message}`, { code: 'invalid_json' });
      }
      throw error;
    }
    const request = parseChatRequest(body);
    checkModelServed(request.model);
    serveCompletion(c.res, request);
  };
  return [
    {
      method: 'GET',
      path: '/v1/models',
      errors: 'openai',
      handler: (c) => {
        checkProjectHeader(c.req);
        sendJson(c.res, 200, {
          object: 'list',
          data: OFFLINE_MODEL_IDS.map((id) => ({ id, object: 'model', created: 0, owned_by: 'system', root: id })),
        });
      },
    },
    { method: 'POST', path: '/v1/chat/completions', errors: 'openai', handler: completions },
  ];
}
