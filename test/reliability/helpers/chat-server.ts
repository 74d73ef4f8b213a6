import { type OpenAIServer, type RecordedRequest, type ScriptedReply, startOpenAIServer } from '../../helpers/openai-server.js';

/**
 * Models the reliability chat server understands; each picks a behaviour, so one server serves every case.
 * - any other model: a normal reply whose text echoes the number and size of the messages, so that a change
 *   to what the app sent shows in what it gets back (other request fields, e.g. `stream_options`, may vary).
 * - `tools`: a reply with a tool call whose arguments are not JSON (streamed in two pieces).
 * - `malformed-stream`: with `stream: true`, a stream whose second event is not JSON.
 * - `huge`: a 10 MB reply (streamed or not).
 * - `unauthorized`: a 401, worded like OpenAI's, that does not repeat the key.
 * - `echo-key`: a 401 whose message quotes the request's Authorization header, key and all, as careless servers do.
 */
export const MODELS = {
  tools: 'tools',
  malformedStream: 'malformed-stream',
  huge: 'huge',
  unauthorized: 'unauthorized',
  echoKey: 'echo-key',
} as const;

const HUGE_TEXT = 'x'.repeat(10 * 1024 * 1024);
const USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

export type ReliabilityChatServer = OpenAIServer;

/** The shared loopback OpenAI server, scripted by model name. */
export async function startReliabilityChatServer(): Promise<ReliabilityChatServer> {
  const server = await startOpenAIServer();
  server.reply(byModel);
  return server;
}

function byModel(request: RecordedRequest): ScriptedReply {
  const model = typeof request.body.model === 'string' ? request.body.model : 'unknown';
  if (model === MODELS.unauthorized) {
    return { status: 401, error: { message: 'Incorrect API key provided.', code: 'invalid_api_key' } };
  }
  if (model === MODELS.echoKey) {
    return { status: 401, error: { message: `Incorrect API key provided: ${request.headers.authorization}.`, code: 'invalid_api_key' } };
  }
  const base = { id: 'chatcmpl-rel', model, usage: USAGE };
  if (model === MODELS.tools) {
    return { ...base, choices: [{ toolCalls: [{ id: 'call_1', name: 'lookup', arguments: ['{not json', ' at all'] }], finishReason: 'tool_calls' }] };
  }
  const messages = Array.isArray(request.body.messages) ? request.body.messages : [];
  const text = model === MODELS.huge ? HUGE_TEXT : `echo ${messages.length} messages, ${JSON.stringify(messages).length} bytes`;
  const half = text.length >> 1;
  return {
    ...base,
    choices: [{ content: [text.slice(0, half), text.slice(half)], finishReason: 'stop' }],
    ...(model === MODELS.malformedStream ? { malformedAfterChunks: 1 } : {}),
  };
}
