/**
 * What an app writes against weft's published types with `exactOptionalPropertyTypes: true`: optional options
 * filled from the environment or from the app's own optional values, so `undefined` where nothing is set. weft
 * treats an `undefined` option as not given (the default applies), so each of these must compile.
 *
 * Compiled by test/types/tsconfig.json against dist/ (`import 'weft'` resolves through package.json `exports`).
 */
import type { Tracer } from '@opentelemetry/api';
import {
  Client,
  HttpCore,
  MultipartBody,
  OpenAIInstrumentation,
  WeftContextSpanProcessor,
  configureTracing,
  op,
  register,
  safeStringify,
  traceChatCompletion,
  traced,
  withContext,
  withSpan,
  weftSpanProcessor,
  withThread,
} from 'weft';
import type { ChatCompletionCreateParamsNonStreaming, ChatCustomRoleMessage, TrainingChatMessage } from 'weft';
import { type DevServiceOptions, startDevService } from 'weft/dev';

const env = process.env;
const text: string | undefined = env.SOME_TEXT;
const count: number | undefined = env.SOME_NUMBER ? Number(env.SOME_NUMBER) : undefined;
const flag: boolean | undefined = env.SOME_FLAG ? env.SOME_FLAG === '1' : undefined;
const signal: AbortSignal | undefined = env.NO_SIGNAL ? undefined : AbortSignal.timeout(1000);
declare const tracer: Tracer;

register({
  apiKey: text,
  project: text,
  baseUrl: text,
  serviceName: text,
  headers: undefined,
  batch: undefined,
  compression: undefined,
  resourceAttributes: undefined,
  instrumentations: undefined,
  spanProcessors: undefined,
  global: flag,
  flushOnExit: flag,
  exitFlushTimeoutMillis: count,
  logger: undefined,
});
register({
  batch: { maxQueueSize: count, maxExportBatchSize: count, scheduledDelayMillis: count, exportTimeoutMillis: count, maxRetrySpans: count },
});
weftSpanProcessor({ apiKey: text, project: text, baseUrl: text, headers: undefined, batch: undefined, compression: undefined });
weftSpanProcessor({ exitFlushTimeoutMillis: count, flushOnExit: flag });

const client = new Client({
  apiKey: text,
  project: text,
  baseUrl: text,
  inferenceBaseUrl: text,
  trainingBaseUrl: text,
  timeoutMs: count,
  maxRetries: count,
  backoff: { initialDelayMs: count, maxDelayMs: count },
  headers: undefined,
  inferenceProjectHeader: text,
  onRetry: undefined,
  tracing: undefined,
});

const dev: DevServiceOptions = {
  port: count,
  host: text,
  apiKey: text,
  dataFile: text,
  maxTraces: count,
  maxRecords: count,
  log: undefined,
  trainingStepMs: count,
  maxBodyBytes: count,
};
void startDevService(dev);
void startDevService({ port: count, host: text });

withContext({ threadId: text, turn: flag, userId: text, sessionId: text, metadata: undefined, tags: undefined, baggage: flag }, () => 1);
withThread('thread', () => 1, { userId: text, sessionId: text });

const contentOptions = { captureContent: undefined, redactContent: undefined, maxAttributeLength: count };
op(async (a: number) => a, { name: text, maxYields: count, displayName: text, kind: text, attributes: undefined, ...contentOptions });
withSpan('block', () => 1, { inputs: undefined, displayName: text, kind: text });
configureTracing({ captureContent: undefined, maxAttributeLength: count });
class Model {
  @traced({ name: text, kind: text })
  async predict(q: string): Promise<string> {
    return q;
  }
}
void Model;
safeStringify({ a: 1 }, { maxLength: count, maxDepth: count });

new OpenAIInstrumentation({
  captureContent: undefined,
  redactContent: undefined,
  maxMessageLength: count,
  maxAttributeLength: count,
  requestStreamUsage: flag,
});
new WeftContextSpanProcessor({ fromBaggage: flag });
traceChatCompletion(tracer, { model: text, temperature: count, stream: flag }, (request) => request, {
  serverUrl: text,
  providerName: text,
  config: undefined,
  serverSendsStreamUsage: flag,
});

// The HTTP core and the per-call options every client method takes.
const core = new HttpCore({ baseUrl: 'http://127.0.0.1:4780', apiKey: text, userAgent: text, timeoutMs: count, dispatcher: undefined });
void core.request({ method: 'GET', path: '/health', query: undefined, signal, timeoutMs: count, idempotent: flag, allowText: flag });
const callOptions = { signal, timeoutMs: count, maxRetries: count, idempotent: flag, headers: undefined };
new MultipartBody().file('file', new Uint8Array(1), { filename: text, contentType: text });

// Request bodies and parameters of the client methods.
void client.trace.calls.streamQuery(
  { project_id: text, filter: { op_names: undefined, trace_roots_only: flag }, limit: count, offset: count, sort_by: undefined },
  callOptions,
);
void client.trace.calls.iterate({ limit: count }, { pageSize: count, ...callOptions });
void client.trace.calls.start({
  start: { op_name: 'op', started_at: new Date().toISOString(), attributes: {}, inputs: {}, id: text, trace_id: text, parent_id: text, thread_id: text },
});
void client.trace.feedback.create({ weave_ref: 'ref', feedback_type: 'custom', payload: {}, id: text, creator: text, call_ref: text });
void client.trace.objs.query({ filter: { latest_only: flag, object_ids: undefined }, limit: count, metadata_only: flag });
void client.trace.objs.listTags({ project_id: text });
void client.trace.annotationQueues.read('queue', { project_id: text });
void client.trace.v2.evaluations.create({ name: 'e', dataset: 'd', scorers: undefined, trials: count, description: text });
void client.inference.chat.completions.create(
  { model: 'm', messages: [{ role: 'user', content: 'hi', name: text }], temperature: count, max_tokens: count, seed: count, user: text },
  callOptions,
);
// A request built ahead of the call, typed by its variant, with an optional `stream` filled from the app's own value.
const noStream: false | undefined = flag ? false : undefined;
const plainRequest: ChatCompletionCreateParamsNonStreaming = { model: 'm', messages: [], stream: noStream };
void client.inference.chat.completions.create(plainRequest);
// vLLM's documented fields are named (with their types), and any other passes, as both services take it.
void client.inference.chat.completions.create({ model: 'm', messages: [], top_k: count, cache_salt: text, reasoning_effort: 'low' });
void client.inference.chat.completions.create({ model: 'm', messages: [], guided_json: { type: 'object' }, metadata: { run: '1' } });
// @ts-expect-error: a named field keeps its type
void client.inference.chat.completions.create({ model: 'm', messages: [], top_k: 'forty' });
void client.training.chat.completions.create({ model: 'm', messages: [], min_p: count, include_reasoning: flag });
// The training service needs only `messages` (a null or absent model is the one it serves), and takes the legacy
// `function` role and a chat template's own roles, which the inference service's types do not.
void client.training.chat.completions.create({ messages: [{ role: 'user', content: 'hi' }] });
const critic: ChatCustomRoleMessage = { role: 'critic', content: 'ok' };
void client.training.chat.completions.create({ model: null, messages: [{ role: 'function', name: 'f', content: '{}' }, critic as unknown as TrainingChatMessage] });
// @ts-expect-error: a standard role's message is still checked (a tool message needs its tool_call_id)
void client.training.chat.completions.create({ messages: [{ role: 'tool', content: 'x' }] });
// @ts-expect-error: the inference service needs a model
void client.inference.chat.completions.create({ messages: [] });
// @ts-expect-error: and takes the four roles of its reference
void client.inference.chat.completions.create({ model: 'm', messages: [{ role: 'critic', content: 'ok' }] });
void client.training.models.create({ project: 'p', name: 'n', base_model: 'b', entity: text, return_existing: flag });
void client.training.models.checkpoints.list('model', { after: text, limit: count, order: undefined });
void client.training.jobs.createRl({
  model_id: 'm',
  trajectory_groups: [{ trajectories: [{ messages_and_choices: [], reward: 1, logs: undefined, start_time: text }], metadata: undefined }],
  experimental_config: { learning_rate: count, ppo: flag },
});
void client.training.jobs.watch('job', { signal, pollIntervalMs: count, maxPollIntervalMs: count, pageSize: count, onEvent: undefined });
void client.training.systemCheck({ maxRetries: count, signal });
