import type { Attributes } from '@opentelemetry/api';
import type { ResolvedChatTracingConfig } from './config.js';
import { splitSystemInstructions, toInputMessages, toOutputMessages, toToolDefinitions } from './messages.js';
import { reportInternalError } from './report.js';
import * as semconv from '../../semconv.js';
import type { ChatServer } from './server.js';
import { serializeWithinLimits } from './truncate.js';
import type { ChatCompletion, ChatCompletionRequest, ChatUsage, GenAIMessage } from './types.js';
import { reportOnce } from '../../diagnostics.js';
import { isObjectRecord } from '../../is-object-record.js';
import { MARK } from '../../marks.js';
import { errorClassName } from '../../tracing/error-text.js';

/**
 * The one mapping from a chat-completion request, response or error to span attributes. No clock, no network,
 * nothing of the instrumentation or client that calls them: what they read is their arguments and the config (whose
 * `redactContent` hook of the app's they call); a failure of theirs is reported once, never thrown.
 */

/** `chat {model}`, the span name semconv asks for. */
export function chatSpanName(request: ChatCompletionRequest): string {
  return typeof request.model === 'string' && request.model ? `${semconv.GEN_AI_OPERATION_CHAT} ${request.model}` : semconv.GEN_AI_OPERATION_CHAT;
}

/** Attributes known before the call: operation, provider, server, model and the parameters that were set. */
export function chatRequestAttributes(request: ChatCompletionRequest, server: ChatServer): Attributes {
  const attributes: Attributes = {
    [semconv.ATTR_GEN_AI_OPERATION_NAME]: semconv.GEN_AI_OPERATION_CHAT,
    [semconv.ATTR_GEN_AI_PROVIDER_NAME]: server.providerName,
    [semconv.ATTR_WEAVE_SPAN_KIND]: semconv.WEAVE_SPAN_KIND_LLM,
  };
  set(attributes, semconv.ATTR_SERVER_ADDRESS, server.address);
  set(attributes, semconv.ATTR_SERVER_PORT, server.port);
  set(attributes, semconv.ATTR_GEN_AI_REQUEST_MODEL, stringOrUndefined(request.model));
  set(attributes, semconv.ATTR_GEN_AI_REQUEST_TEMPERATURE, numberOrUndefined(request.temperature));
  set(attributes, semconv.ATTR_GEN_AI_REQUEST_TOP_P, numberOrUndefined(request.top_p));
  set(
    attributes,
    semconv.ATTR_GEN_AI_REQUEST_MAX_TOKENS,
    integerOrUndefined(request.max_completion_tokens) ?? integerOrUndefined(request.max_tokens),
  );
  set(attributes, semconv.ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY, numberOrUndefined(request.frequency_penalty));
  set(attributes, semconv.ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY, numberOrUndefined(request.presence_penalty));
  set(attributes, semconv.ATTR_GEN_AI_REQUEST_SEED, integerOrUndefined(request.seed));
  // Semconv sets the choice count only when it is not 1, and `stream` only on a streamed request.
  const choices = integerOrUndefined(request.n);
  if (choices !== undefined && choices !== 1) attributes[semconv.ATTR_GEN_AI_REQUEST_CHOICE_COUNT] = choices;
  if (request.stream === true) attributes[semconv.ATTR_GEN_AI_REQUEST_STREAM] = true;
  if (typeof request.stop === 'string') attributes[semconv.ATTR_GEN_AI_REQUEST_STOP_SEQUENCES] = [request.stop];
  else if (Array.isArray(request.stop)) {
    const stop = request.stop.filter((s): s is string => typeof s === 'string');
    if (stop.length > 0) attributes[semconv.ATTR_GEN_AI_REQUEST_STOP_SEQUENCES] = stop;
  }
  set(attributes, semconv.ATTR_GEN_AI_REQUEST_REASONING_LEVEL, stringOrUndefined(request.reasoning_effort));
  set(attributes, semconv.ATTR_GEN_AI_OUTPUT_TYPE, outputType(request.response_format?.type));
  if (isOpenAIProvider(server.providerName)) {
    attributes[semconv.ATTR_OPENAI_API_TYPE] = semconv.OPENAI_API_TYPE_CHAT_COMPLETIONS;
    if (typeof request.service_tier === 'string' && request.service_tier !== 'auto') {
      attributes[semconv.ATTR_OPENAI_REQUEST_SERVICE_TIER] = request.service_tier;
    }
  }
  return attributes;
}

/**
 * What the request carried: tool definitions (names only, unless input content is recorded) and the input
 * messages and system instructions. Content comes from the app (and its hook): whatever cannot be recorded is
 * left out, and the rest is still returned.
 */
export function chatRequestContentAttributes(request: ChatCompletionRequest, config: ResolvedChatTracingConfig): Attributes {
  const attributes: Attributes = {};
  try {
    const tools = toToolDefinitions(request, config.captureInput);
    if (tools.length > 0) {
      set(attributes, semconv.ATTR_GEN_AI_TOOL_DEFINITIONS, serialize(tools, config, (n) => ({ type: 'function', name: `…[${n} tools left out]` })));
    }
  } catch (error) {
    reportInternalError('tool definitions', error);
  }
  if (config.captureInput) {
    try {
      Object.assign(attributes, inputContentAttributes(request, config));
    } catch (error) {
      reportInternalError('input content', error);
    }
  }
  return attributes;
}

function inputContentAttributes(request: ChatCompletionRequest, config: ResolvedChatTracingConfig): Attributes {
  const attributes: Attributes = {};
  const messages = redact(toInputMessages(request.messages), 'input', config);
  if (!messages) return attributes;
  const { instructions, conversation } = splitSystemInstructions(messages);
  if (instructions.length > 0) {
    set(attributes, semconv.ATTR_GEN_AI_SYSTEM_INSTRUCTIONS, serialize(instructions, config, (n) => ({ type: 'text', content: `…[${n} parts left out]` })));
  }
  // A request of instructions alone keeps them as its input messages too: the trace service reads the call's inputs
  // from `gen_ai.input.messages` only, and would show the call with none.
  const input = conversation.length > 0 ? conversation : messages;
  if (input.length > 0) set(attributes, semconv.ATTR_GEN_AI_INPUT_MESSAGES, serialize(input, config, droppedMessages));
  return attributes;
}

/**
 * Attributes read from a finished response (or a stream accumulated into one): ids, finish reasons, usage, output
 * content. `providerName` is the span's `gen_ai.provider.name`: OpenAI's own attributes go on OpenAI's spans only.
 */
export function chatResponseAttributes(completion: ChatCompletion, config: ResolvedChatTracingConfig, providerName: string): Attributes {
  const attributes: Attributes = {};
  set(attributes, semconv.ATTR_GEN_AI_RESPONSE_ID, stringOrUndefined(completion.id));
  set(attributes, semconv.ATTR_GEN_AI_RESPONSE_MODEL, stringOrUndefined(completion.model));
  if (isOpenAIProvider(providerName)) {
    set(attributes, semconv.ATTR_OPENAI_RESPONSE_SERVICE_TIER, stringOrUndefined(completion.service_tier));
    set(attributes, semconv.ATTR_OPENAI_RESPONSE_SYSTEM_FINGERPRINT, stringOrUndefined(completion.system_fingerprint));
  }
  const choices = Array.isArray(completion.choices) ? [...completion.choices].sort((a, b) => (a?.index ?? 0) - (b?.index ?? 0)) : [];
  // One reason per choice, in order: a choice that did not finish (a stream cut short) is `error`, as semconv asks,
  // so that the list still lines up with the choices.
  if (choices.length > 0) {
    attributes[semconv.ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = choices.map((c) => stringOrUndefined(c?.finish_reason) ?? semconv.FINISH_REASON_ERROR);
  }
  Object.assign(attributes, chatUsageAttributes(completion.usage));
  if (config.captureOutput && choices.length > 0) {
    try {
      const messages = redact(toOutputMessages(choices), 'output', config);
      if (messages) set(attributes, semconv.ATTR_GEN_AI_OUTPUT_MESSAGES, serialize(messages, config, droppedMessages));
    } catch (error) {
      reportInternalError('output content', error);
    }
  }
  return attributes;
}

/** Token counts, including cache reads and reasoning when the response has them, and the total the trace service reads. */
function chatUsageAttributes(usage: ChatUsage | null | undefined): Attributes {
  const attributes: Attributes = {};
  if (!usage || typeof usage !== 'object') return attributes;
  const input = numberOrUndefined(usage.prompt_tokens);
  const output = numberOrUndefined(usage.completion_tokens);
  set(attributes, semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS, input);
  set(attributes, semconv.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, output);
  set(attributes, semconv.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, numberOrUndefined(usage.prompt_tokens_details?.cached_tokens));
  set(
    attributes,
    semconv.ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
    numberOrUndefined(usage.completion_tokens_details?.reasoning_tokens),
  );
  const total = numberOrUndefined(usage.total_tokens) ?? (input !== undefined && output !== undefined ? input + output : undefined);
  set(attributes, semconv.ATTR_LLM_USAGE_TOTAL_TOKENS, total);
  return attributes;
}

/** `error.type` (the error's class, e.g. `RateLimitError`) and, for HTTP errors, `http.response.status_code`. */
export function chatErrorAttributes(error: unknown): Attributes {
  const attributes: Attributes = { [semconv.ATTR_ERROR_TYPE]: errorType(error) };
  const status = (error as { status?: unknown } | null | undefined)?.status;
  if (typeof status === 'number' && Number.isInteger(status)) attributes[semconv.ATTR_HTTP_RESPONSE_STATUS_CODE] = status;
  return attributes;
}

/** A low-cardinality name for an error: its `name` unless that is the generic `Error`, else its class name. */
export function errorType(error: unknown): string {
  return error && typeof error === 'object' ? errorClassName(error, semconv.ERROR_TYPE_OTHER) : semconv.ERROR_TYPE_OTHER;
}

function droppedMessages(count: number): GenAIMessage {
  return { role: '_truncated', parts: [{ type: 'text', content: MARK.earlierMessages(count) }] };
}

/** The messages as the app's hook leaves them; undefined when none may be recorded. */
function redact<M extends GenAIMessage>(messages: M[], direction: 'input' | 'output', config: ResolvedChatTracingConfig): M[] | undefined {
  const hook = config.redactContent;
  if (!hook) return messages;
  let result: unknown;
  try {
    result = hook(messages, direction);
  } catch (error) {
    // Fail closed: content the app wanted rewritten must not be recorded as it was.
    reportInternalError('redactContent hook', error);
    return undefined;
  }
  if (result === undefined) return messages;
  if (result === null) return undefined;
  if (isMessageList(result)) return result as M[];
  // Fail closed here too: a result weft cannot read may still hold what the hook was meant to take out.
  reportOnce(
    'instrumentation:redactContent result',
    'the redactContent hook returned something other than an array of messages ({ role, parts: [{ type }] }), null or nothing; that content is left out of the span.',
  );
  return undefined;
}

function isMessageList(value: unknown): value is GenAIMessage[] {
  return (
    Array.isArray(value) &&
    value.every(
      (message: unknown) =>
        isObjectRecord(message) &&
        typeof message.role === 'string' &&
        Array.isArray(message.parts) &&
        message.parts.every((part: unknown) => isObjectRecord(part) && typeof part.type === 'string'),
    )
  );
}

function serialize(items: readonly unknown[], config: ResolvedChatTracingConfig, dropped: (count: number) => unknown): string | undefined {
  return serializeWithinLimits(items, config.maxMessageLength, config.maxAttributeLength, dropped);
}

function outputType(format: string | undefined): string | undefined {
  if (format === 'json_object' || format === 'json_schema') return 'json';
  if (format === 'text') return 'text';
  return undefined;
}

function set(attributes: Attributes, key: string, value: string | number | boolean | undefined): void {
  if (value !== undefined) attributes[key] = value;
}

/** `openai.*` attributes belong on spans of OpenAI's API, at OpenAI or on Azure. */
function isOpenAIProvider(providerName: string): boolean {
  return providerName === semconv.GEN_AI_PROVIDER_OPENAI || providerName === semconv.GEN_AI_PROVIDER_AZURE_OPENAI;
}

/** Seeds and token and choice counts are integers in semconv (and go out as OTLP ints). */
function integerOrUndefined(value: unknown): number | undefined {
  return Number.isSafeInteger(value) ? (value as number) : undefined;
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
