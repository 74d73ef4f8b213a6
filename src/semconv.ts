/**
 * The attribute keys and values of weft's GenAI spans, one vocabulary for instrumentation/ (chat spans) and
 * tracing/ (which sets the conversation id and the call's kind on other spans too): the OpenTelemetry GenAI
 * semantic conventions (development status: the `gen_ai.*` registry and the inference span of
 * github.com/open-telemetry/semantic-conventions-genai, where they moved from semantic-conventions after v1.40),
 * plus two keys the trace service reads (the trace service reference §3.2): the call's total token count
 * (`llm.usage.total_tokens`) and its kind (`weave.span.kind`, `llm`, which lets the calls of a model be told from
 * the app's own ops).
 */

export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_GEN_AI_OUTPUT_TYPE = 'gen_ai.output.type';
/** Set from a `withThread()` scope by `WeftContextSpanProcessor`, on chat spans and other GenAI spans alike. */
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';

export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_GEN_AI_REQUEST_TEMPERATURE = 'gen_ai.request.temperature';
export const ATTR_GEN_AI_REQUEST_MAX_TOKENS = 'gen_ai.request.max_tokens';
export const ATTR_GEN_AI_REQUEST_TOP_P = 'gen_ai.request.top_p';
export const ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY = 'gen_ai.request.frequency_penalty';
export const ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY = 'gen_ai.request.presence_penalty';
export const ATTR_GEN_AI_REQUEST_STOP_SEQUENCES = 'gen_ai.request.stop_sequences';
export const ATTR_GEN_AI_REQUEST_SEED = 'gen_ai.request.seed';
export const ATTR_GEN_AI_REQUEST_CHOICE_COUNT = 'gen_ai.request.choice.count';
export const ATTR_GEN_AI_REQUEST_STREAM = 'gen_ai.request.stream';
/** From OpenAI's `reasoning_effort`. */
export const ATTR_GEN_AI_REQUEST_REASONING_LEVEL = 'gen_ai.request.reasoning.level';

export const ATTR_GEN_AI_RESPONSE_ID = 'gen_ai.response.id';
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK = 'gen_ai.response.time_to_first_chunk';

export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS = 'gen_ai.usage.reasoning.output_tokens';
/** Not semconv: the trace service reads the total only from here (it does not sum input and output). */
export const ATTR_LLM_USAGE_TOTAL_TOKENS = 'llm.usage.total_tokens';
/** The call's kind, `attributes.kind` in the trace service, as an op's `kind` option sets it. */
export const ATTR_WEAVE_SPAN_KIND = 'weave.span.kind';
export const WEAVE_SPAN_KIND_LLM = 'llm';

export const ATTR_GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages';
export const ATTR_GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const ATTR_GEN_AI_SYSTEM_INSTRUCTIONS = 'gen_ai.system_instructions';
export const ATTR_GEN_AI_TOOL_DEFINITIONS = 'gen_ai.tool.definitions';

/** Which of OpenAI's APIs was called: weft traces chat completions. */
export const ATTR_OPENAI_API_TYPE = 'openai.api.type';
export const OPENAI_API_TYPE_CHAT_COMPLETIONS = 'chat_completions';
export const ATTR_OPENAI_REQUEST_SERVICE_TIER = 'openai.request.service_tier';
export const ATTR_OPENAI_RESPONSE_SERVICE_TIER = 'openai.response.service_tier';
export const ATTR_OPENAI_RESPONSE_SYSTEM_FINGERPRINT = 'openai.response.system_fingerprint';

export const ATTR_SERVER_ADDRESS = 'server.address';
export const ATTR_SERVER_PORT = 'server.port';
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';

export const GEN_AI_OPERATION_CHAT = 'chat';
export const GEN_AI_PROVIDER_OPENAI = 'openai';
export const GEN_AI_PROVIDER_AZURE_OPENAI = 'azure.ai.openai';
/** The finish reason of a choice that did not finish (semconv has no "unknown"). */
export const FINISH_REASON_ERROR = 'error';
/** `error.type` when the cause has no usable name. */
export const ERROR_TYPE_OTHER = '_OTHER';
