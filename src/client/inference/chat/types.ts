/**
 * Wire types of the chat-completions format shared by the inference and training services (spec part 2 C, and
 * the reference §1.8 and §2.2–2.4). Both hosts accept fields beyond the ones listed, so every object type keeps
 * an open `[k: string]: unknown` passthrough, as the reference advises; the documented vLLM extras are named too
 * (see {@link VllmSamplingParams}). Ids and model names stay plain strings.
 */

/** A text part of a message's content. */
export interface ChatTextPart {
  type: 'text';
  text: string;
  [k: string]: unknown;
}

/** An image part of a user message (vision models). */
export interface ChatImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' | undefined; [k: string]: unknown };
  [k: string]: unknown;
}

/** Any other content part the host accepts (input_audio, file, audio_url, video_url, thinking, …). */
export interface ChatOtherPart {
  type: string;
  [k: string]: unknown;
}

/** One part of a structured message content. */
export type ChatContentPart = ChatTextPart | ChatImagePart | ChatOtherPart;

/** A tool call made by the assistant; `arguments` is a JSON string, as the model wrote it. */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  [k: string]: unknown;
}

/** The system (or developer) message that sets the model's behaviour. */
export interface ChatSystemMessage {
  role: 'system' | 'developer';
  content: string | ChatTextPart[];
  name?: string | undefined;
  [k: string]: unknown;
}

/** A message from the user. */
export interface ChatUserMessage {
  role: 'user';
  content: string | ChatContentPart[];
  name?: string | undefined;
  [k: string]: unknown;
}

/** A previous assistant turn, possibly with tool calls instead of content. */
export interface ChatAssistantMessage {
  role: 'assistant';
  content?: string | ChatTextPart[] | null | undefined;
  tool_calls?: ChatToolCall[] | undefined;
  refusal?: string | null | undefined;
  name?: string | undefined;
  [k: string]: unknown;
}

/** The result of a tool call, answering the assistant's `tool_calls[].id`. */
export interface ChatToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string | ChatTextPart[];
  [k: string]: unknown;
}

/** One message of a chat request. */
export type ChatMessage = ChatSystemMessage | ChatUserMessage | ChatAssistantMessage | ChatToolMessage;

/** A function the model may call. Both hosts take function tools only. */
export interface ChatFunctionTool {
  type: 'function';
  function: {
    name: string;
    description?: string | undefined;
    /** A JSON Schema object for the arguments. */
    parameters?: Record<string, unknown> | undefined;
    strict?: boolean | undefined;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

/** Whether and which tool the model must call. The training host's default is `"none"`. */
export type ChatToolChoice =
  | 'none'
  | 'auto'
  | 'required'
  | { type: 'function'; function: { name: string; [k: string]: unknown }; [k: string]: unknown };

/** The output format: free text, JSON mode, or structured output against a JSON Schema. */
export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; description?: string | undefined; schema?: Record<string, unknown> | undefined; strict?: boolean | undefined; [k: string]: unknown };
    };

/** Options of a streamed response. */
export interface ChatStreamOptions {
  /** Ask for a final chunk with `usage` and empty `choices` before `[DONE]`. */
  include_usage?: boolean | undefined;
  [k: string]: unknown;
}

/**
 * The vLLM options both services' chat endpoints accept beyond OpenAI's format (reference §1.8, the training
 * host's schema; the inference host is served the same way), named so that an editor offers them and checks their
 * types. Other fields pass too (the request's open index).
 */
export interface VllmSamplingParams {
  top_k?: number | undefined;
  min_p?: number | undefined;
  repetition_penalty?: number | undefined;
  length_penalty?: number | undefined;
  use_beam_search?: boolean | undefined;
  min_tokens?: number | undefined;
  stop_token_ids?: number[] | undefined;
  include_stop_str_in_output?: boolean | undefined;
  ignore_eos?: boolean | undefined;
  skip_special_tokens?: boolean | undefined;
  spaces_between_special_tokens?: boolean | undefined;
  truncate_prompt_tokens?: number | undefined;
  prompt_logprobs?: number | undefined;
  allowed_token_ids?: number[] | undefined;
  bad_words?: string[] | undefined;
  echo?: boolean | undefined;
  add_generation_prompt?: boolean | undefined;
  continue_final_message?: boolean | undefined;
  add_special_tokens?: boolean | undefined;
  documents?: Array<Record<string, string>> | undefined;
  chat_template?: string | undefined;
  chat_template_kwargs?: Record<string, unknown> | undefined;
  mm_processor_kwargs?: Record<string, unknown> | undefined;
  /** `{ json | regex | choice | grammar | json_object | … }`. */
  structured_outputs?: Record<string, unknown> | undefined;
  priority?: number | undefined;
  request_id?: string | undefined;
  logits_processors?: unknown[] | undefined;
  return_tokens_as_token_ids?: boolean | undefined;
  return_token_ids?: boolean | undefined;
  /** A non-empty string that isolates prefix-cache reuse. */
  cache_salt?: string | undefined;
  kv_transfer_params?: Record<string, unknown> | undefined;
  vllm_xargs?: Record<string, unknown> | undefined;
  include_reasoning?: boolean | undefined;
}

/** The body of `POST /chat/completions`, common to both variants (streamed or not). */
export interface ChatCompletionCreateParamsBase extends ChatCompletionSettings {
  /** A model id from the model list, e.g. `OpenPipe/Qwen3-14B-Instruct`, or a LoRA artifact URI. */
  model: string;
  messages: ChatMessage[];
}

/** What a chat request may say besides its `model` and `messages`: the same on the inference and training services. */
export interface ChatCompletionSettings extends VllmSamplingParams {
  tools?: ChatFunctionTool[] | undefined;
  tool_choice?: ChatToolChoice | undefined;
  parallel_tool_calls?: boolean | undefined;
  response_format?: ChatResponseFormat | undefined;
  temperature?: number | undefined;
  top_p?: number | undefined;
  max_tokens?: number | undefined;
  max_completion_tokens?: number | undefined;
  stop?: string | string[] | undefined;
  n?: number | undefined;
  seed?: number | undefined;
  presence_penalty?: number | undefined;
  frequency_penalty?: number | undefined;
  logprobs?: boolean | undefined;
  top_logprobs?: number | undefined;
  logit_bias?: Record<string, number> | undefined;
  reasoning_effort?: 'low' | 'medium' | 'high' | undefined;
  user?: string | undefined;
  stream?: boolean | null | undefined;
  stream_options?: ChatStreamOptions | null | undefined;
  /**
   * Fields beyond those named pass as they are: both hosts take them (`additionalProperties`, reference §1.8 and
   * §3), and a newer OpenAI or vLLM field must not need a new weft.
   */
  [k: string]: unknown;
}

/** A request that returns one `chat.completion` object. */
export interface ChatCompletionCreateParamsNonStreaming extends ChatCompletionCreateParamsBase {
  stream?: false | null | undefined;
}

/** A request that returns a stream of `chat.completion.chunk` objects. */
export interface ChatCompletionCreateParamsStreaming extends ChatCompletionCreateParamsBase {
  stream: true;
}

/** Either request variant. */
export type ChatCompletionCreateParams = ChatCompletionCreateParamsNonStreaming | ChatCompletionCreateParamsStreaming;

/** Token counts of one completion. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; [k: string]: unknown } | null;
  completion_tokens_details?: { reasoning_tokens?: number; [k: string]: unknown } | null;
  [k: string]: unknown;
}

/** The assistant's message in a completion choice. */
export interface ChatCompletionMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ChatToolCall[];
  refusal?: string | null;
  /** Reasoning models put their reasoning here. */
  reasoning_content?: string | null;
  [k: string]: unknown;
}

/** One choice of a completion. `finish_reason` is an open string (`stop`, `length`, `tool_calls`, …). */
export interface ChatCompletionChoice {
  index: number;
  message: ChatCompletionMessage;
  finish_reason: string | null;
  logprobs?: unknown;
  [k: string]: unknown;
}

/** The response of a non-streamed chat completion. */
export interface ChatCompletionResponse {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: ChatCompletionChoice[];
  /** Always sent by both services (reference §1.8). */
  usage: ChatUsage;
  system_fingerprint?: string | null;
  [k: string]: unknown;
}

/** A fragment of a tool call in a stream; `arguments` fragments join per `index`. */
export interface ChatToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string; [k: string]: unknown };
  [k: string]: unknown;
}

/** What one chunk adds to a choice. */
export interface ChatCompletionChunkDelta {
  role?: 'assistant';
  content?: string | null;
  reasoning_content?: string | null;
  tool_calls?: ChatToolCallDelta[];
  refusal?: string | null;
  [k: string]: unknown;
}

/** One choice of a chunk. */
export interface ChatCompletionChunkChoice {
  index: number;
  delta: ChatCompletionChunkDelta;
  finish_reason: string | null;
  logprobs?: unknown;
  [k: string]: unknown;
}

/**
 * One event of a streamed completion. The final usage chunk has `choices: []` and a `usage` object.
 */
export interface ChatCompletionStreamChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: ChatCompletionChunkChoice[];
  usage?: ChatUsage | null;
  [k: string]: unknown;
}
