/**
 * The shapes weft reads: OpenAI-compatible chat-completion requests, responses and stream chunks (the wire),
 * and the GenAI semantic-convention message schema weft writes. Every field is optional and loosely typed on
 * purpose: these describe what an OpenAI-compatible server *may* send, the mapping reads them defensively,
 * and the official `openai` types (any major from 4 on) as well as weft's own client types fit them.
 */

// ---------------------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------------------

/** One part of a multi-part message content (`text`, `image_url`, `input_audio`, `file`, `refusal`). */
export interface ChatContentPartParam {
  readonly type: string;
  readonly text?: string | undefined;
  readonly refusal?: string | undefined;
  readonly image_url?: { readonly url: string; readonly detail?: string | undefined } | undefined;
  readonly input_audio?: { readonly data: string; readonly format: string } | undefined;
  readonly file?: { readonly file_data?: string | undefined; readonly file_id?: string | undefined; readonly filename?: string | undefined } | undefined;
}

/** A tool call the assistant made, as it appears in a request's history or in a response message. */
export interface ChatToolCall {
  readonly id?: string | undefined;
  readonly type?: string | undefined;
  readonly function?: { readonly name?: string | undefined; readonly arguments?: string | undefined } | undefined;
  /** `type: 'custom'` tools (openai ≥ 5.12) carry free-form input instead of JSON arguments. */
  readonly custom?: { readonly name?: string | undefined; readonly input?: string | undefined } | undefined;
}

/** One message of the request's conversation (`system`, `developer`, `user`, `assistant`, `tool`, `function`). */
export interface ChatMessageParam {
  readonly role: string;
  readonly content?: string | readonly ChatContentPartParam[] | null | undefined;
  readonly name?: string | undefined;
  readonly tool_calls?: readonly ChatToolCall[] | undefined;
  readonly tool_call_id?: string | undefined;
  readonly function_call?: { readonly name?: string | undefined; readonly arguments?: string | undefined } | null | undefined;
  readonly refusal?: string | null | undefined;
}

/** A tool the model may call (`{ type: 'function', function: { name, description, parameters } }`). */
export interface ChatToolParam {
  readonly type?: string | undefined;
  readonly function?: { readonly name?: string | undefined; readonly description?: string | undefined; readonly parameters?: unknown } | undefined;
  readonly custom?: { readonly name?: string | undefined; readonly description?: string | undefined; readonly format?: unknown } | undefined;
}

/** The body of `POST /chat/completions`, limited to the fields weft reads. */
export interface ChatCompletionRequest {
  readonly model?: string | undefined;
  readonly messages?: readonly ChatMessageParam[] | undefined;
  readonly temperature?: number | null | undefined;
  readonly top_p?: number | null | undefined;
  readonly max_tokens?: number | null | undefined;
  readonly max_completion_tokens?: number | null | undefined;
  readonly frequency_penalty?: number | null | undefined;
  readonly presence_penalty?: number | null | undefined;
  readonly stop?: string | readonly string[] | null | undefined;
  readonly seed?: number | null | undefined;
  readonly n?: number | null | undefined;
  readonly stream?: boolean | null | undefined;
  readonly stream_options?: { readonly include_usage?: boolean | null | undefined } | null | undefined;
  readonly tools?: readonly ChatToolParam[] | undefined;
  /** Legacy function definitions (before `tools`). */
  readonly functions?: readonly { readonly name?: string | undefined; readonly description?: string | undefined; readonly parameters?: unknown }[] | undefined;
  readonly response_format?: { readonly type?: string | undefined } | null | undefined;
  readonly service_tier?: string | null | undefined;
  /** `minimal`, `low`, `medium`, `high` on reasoning models: `gen_ai.request.reasoning.level`. */
  readonly reasoning_effort?: string | null | undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Response
// ---------------------------------------------------------------------------------------------------------

/** Token counts; the `*_details` breakdowns are present on newer models only. */
export interface ChatUsage {
  readonly prompt_tokens?: number;
  readonly completion_tokens?: number;
  readonly total_tokens?: number;
  readonly prompt_tokens_details?: { readonly cached_tokens?: number | null } | null;
  readonly completion_tokens_details?: { readonly reasoning_tokens?: number | null } | null;
}

/**
 * The assistant message of one choice. Reasoning is not OpenAI's: other compatible servers send it as
 * `reasoning_content` (DeepSeek, older vLLM) or `reasoning` (vLLM); the first one set is read.
 */
export interface ChatResponseMessage {
  readonly role?: string;
  readonly content?: string | null;
  readonly refusal?: string | null;
  readonly tool_calls?: readonly ChatToolCall[] | null;
  readonly function_call?: { readonly name?: string; readonly arguments?: string } | null;
  readonly reasoning_content?: string | null;
  readonly reasoning?: string | null;
  /** A spoken answer (`modalities: ['audio']`): base64 audio and its transcript. */
  readonly audio?: { readonly data?: string; readonly transcript?: string } | null;
}

/** One choice of a non-streamed response. */
export interface ChatChoice {
  readonly index?: number;
  readonly finish_reason?: string | null;
  readonly message?: ChatResponseMessage;
}

/** A non-streamed response. */
export interface ChatCompletion {
  readonly id?: string;
  readonly model?: string;
  readonly choices?: readonly ChatChoice[];
  readonly usage?: ChatUsage | null;
  readonly service_tier?: string | null;
  readonly system_fingerprint?: string | null;
}

/** A fragment of a tool call in a stream; `index` says which call of the choice it extends. */
export interface ChatToolCallDelta {
  readonly index?: number;
  readonly id?: string;
  readonly type?: string;
  readonly function?: { readonly name?: string; readonly arguments?: string };
}

/** What one chunk adds to a choice. */
export interface ChatDelta {
  readonly role?: string | null;
  readonly content?: string | null;
  readonly refusal?: string | null;
  readonly reasoning_content?: string | null;
  readonly reasoning?: string | null;
  readonly tool_calls?: readonly ChatToolCallDelta[] | null;
  readonly function_call?: { readonly name?: string; readonly arguments?: string } | null;
}

/** One choice's part of a stream chunk. */
export interface ChatChunkChoice {
  readonly index?: number;
  readonly finish_reason?: string | null;
  readonly delta?: ChatDelta;
}

/** One `data:` event of a streamed response. With `stream_options.include_usage` the last one has usage and no choices. */
export interface ChatCompletionChunk {
  readonly id?: string;
  readonly model?: string;
  readonly choices?: readonly ChatChunkChoice[];
  readonly usage?: ChatUsage | null;
  readonly service_tier?: string | null;
  readonly system_fingerprint?: string | null;
}

// ---------------------------------------------------------------------------------------------------------
// GenAI semantic-convention message schema (what weft records)
// ---------------------------------------------------------------------------------------------------------

/** Text sent to or received from the model. */
export interface GenAITextPart {
  type: 'text';
  content: string;
}
/** A tool call the model asked for. */
export interface GenAIToolCallPart {
  type: 'tool_call';
  id?: string | undefined;
  name: string;
  /** Parsed JSON when the arguments were valid JSON, else the raw string. */
  arguments?: unknown;
}
/** A tool's result sent back to the model. */
export interface GenAIToolCallResponsePart {
  type: 'tool_call_response';
  id?: string | undefined;
  response: unknown;
}
/** Reasoning text the model returned (`reasoning_content` or `reasoning`). */
export interface GenAIReasoningPart {
  type: 'reasoning';
  content: string;
}
/** Inline binary content (a `data:` URL's payload, input audio). */
export interface GenAIBlobPart {
  type: 'blob';
  modality: string;
  mime_type?: string | undefined;
  /** Base64. */
  content: string;
}
/** Content referenced by URL. */
export interface GenAIUriPart {
  type: 'uri';
  modality: string;
  mime_type?: string | undefined;
  uri: string;
}
/** A file uploaded to the provider, referenced by id. */
export interface GenAIFilePart {
  type: 'file';
  modality: string;
  mime_type?: string | undefined;
  file_id: string;
}
/** Any other part, e.g. `{ type: 'refusal', content }`. */
export interface GenAIGenericPart {
  type: string;
  [key: string]: unknown;
}

/** One part of a recorded message, per the semconv message schema. */
export type GenAIPart =
  | GenAITextPart
  | GenAIToolCallPart
  | GenAIToolCallResponsePart
  | GenAIReasoningPart
  | GenAIBlobPart
  | GenAIUriPart
  | GenAIFilePart
  | GenAIGenericPart;

/** An element of `gen_ai.input.messages`. */
export interface GenAIMessage {
  role: string;
  parts: GenAIPart[];
  name?: string | undefined;
}

/** An element of `gen_ai.output.messages`: one per choice. */
export interface GenAIOutputMessage extends GenAIMessage {
  /** `stop`, `length`, `content_filter`, `tool_call`, `error`, or the provider's own value. */
  finish_reason: string;
}

/** An element of `gen_ai.tool.definitions`. */
export interface GenAIToolDefinition {
  type: string;
  name: string;
  description?: string;
  /** A function tool's JSON Schema. */
  parameters?: unknown;
  /** A custom tool's input format (free text, or a grammar): not a JSON Schema, so not `parameters`. */
  format?: unknown;
}
