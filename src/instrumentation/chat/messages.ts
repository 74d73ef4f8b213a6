import type {
  ChatChoice,
  ChatContentPartParam,
  ChatMessageParam,
  ChatResponseMessage,
  ChatToolCall,
  ChatToolParam,
  ChatCompletionRequest,
  GenAIMessage,
  GenAIOutputMessage,
  GenAIPart,
  GenAIToolDefinition,
} from './types.js';

/**
 * Conversions between OpenAI-compatible chat messages and the GenAI semantic-convention message schema.
 * Pure functions; every input is read defensively because it comes from the app or the network.
 */

/** Maps an OpenAI finish reason to the semconv enum (`stop`, `length`, `content_filter`, `tool_call`, `error`). */
function toGenAIFinishReason(reason: string | null | undefined): string {
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return 'tool_call';
    case null:
    case undefined:
    case '':
      // A choice without a reason did not finish (e.g. a stream that was cut); semconv has no "unknown".
      return 'error';
    default:
      return reason;
  }
}

/** The request's messages in the semconv input schema, in the order they were sent (system messages included). */
export function toInputMessages(messages: readonly ChatMessageParam[] | undefined): GenAIMessage[] {
  if (!Array.isArray(messages)) return [];
  const out: GenAIMessage[] = [];
  for (const message of messages as readonly ChatMessageParam[]) {
    if (message && typeof message === 'object') out.push(toInputMessage(message));
  }
  return out;
}

function toInputMessage(message: ChatMessageParam): GenAIMessage {
  const role = typeof message.role === 'string' ? message.role : 'user';
  const parts: GenAIPart[] = [];
  if (role === 'tool' || role === 'function') {
    // A tool result: the whole content is the response to the call it names.
    parts.push({ type: 'tool_call_response', id: message.tool_call_id, response: contentAsText(message.content) });
    const result: GenAIMessage = { role: 'tool', parts };
    if (role === 'function' && typeof message.name === 'string') result.name = message.name;
    return result;
  }
  appendContent(parts, message.content);
  if (typeof message.refusal === 'string' && message.refusal) parts.push({ type: 'refusal', content: message.refusal });
  appendToolCalls(parts, message.tool_calls, message.function_call);
  const result: GenAIMessage = { role, parts };
  if (typeof message.name === 'string' && message.name) result.name = message.name;
  return result;
}

/**
 * Splits leading `system`/`developer` messages off the conversation into `gen_ai.system_instructions`: they are
 * the instructions of the call, and the trace service shows them as the call's system prompt. Later system
 * messages stay in place, since their position in the conversation matters.
 */
export function splitSystemInstructions(messages: GenAIMessage[]): { instructions: GenAIPart[]; conversation: GenAIMessage[] } {
  let i = 0;
  const instructions: GenAIPart[] = [];
  while (i < messages.length) {
    const message = messages[i]!;
    if (message.role !== 'system' && message.role !== 'developer') break;
    instructions.push(...message.parts);
    i += 1;
  }
  return { instructions, conversation: i === 0 ? messages : messages.slice(i) };
}

/** One semconv output message per choice, in the order given (the caller orders them by index). */
export function toOutputMessages(choices: readonly ChatChoice[]): GenAIOutputMessage[] {
  return choices.map((choice) => toOutputMessage(choice?.message, choice?.finish_reason));
}

function toOutputMessage(message: ChatResponseMessage | undefined, finishReason: string | null | undefined): GenAIOutputMessage {
  const parts: GenAIPart[] = [];
  if (message && typeof message === 'object') {
    const reasoning = message.reasoning_content || message.reasoning;
    if (typeof reasoning === 'string' && reasoning) parts.push({ type: 'reasoning', content: reasoning });
    if (typeof message.content === 'string' && message.content) parts.push({ type: 'text', content: message.content });
    if (typeof message.refusal === 'string' && message.refusal) parts.push({ type: 'refusal', content: message.refusal });
    appendAudio(parts, message.audio);
    appendToolCalls(parts, message.tool_calls ?? undefined, message.function_call);
  }
  const role = message && typeof message.role === 'string' ? message.role : 'assistant';
  return { role, parts, finish_reason: toGenAIFinishReason(finishReason) };
}

/**
 * The request's tools in the semconv tool-definition schema. Descriptions and parameter schemas can be large,
 * so they are included only when input content is recorded.
 */
export function toToolDefinitions(request: ChatCompletionRequest, withSchemas: boolean): GenAIToolDefinition[] {
  const out: GenAIToolDefinition[] = [];
  if (Array.isArray(request.tools)) {
    for (const tool of request.tools as readonly ChatToolParam[]) {
      const spec = tool?.function ?? tool?.custom;
      if (!spec || typeof spec.name !== 'string') continue;
      const definition: GenAIToolDefinition = { type: typeof tool.type === 'string' ? tool.type : 'function', name: spec.name };
      if (withSchemas) {
        if (typeof spec.description === 'string') definition.description = spec.description;
        if (tool.function && tool.function.parameters !== undefined) definition.parameters = tool.function.parameters;
        else if (!tool.function && tool.custom?.format !== undefined) definition.format = tool.custom.format;
      }
      out.push(definition);
    }
  }
  if (Array.isArray(request.functions)) {
    for (const fn of request.functions) {
      if (!fn || typeof fn.name !== 'string') continue;
      const definition: GenAIToolDefinition = { type: 'function', name: fn.name };
      if (withSchemas) {
        if (typeof fn.description === 'string') definition.description = fn.description;
        if (fn.parameters !== undefined) definition.parameters = fn.parameters;
      }
      out.push(definition);
    }
  }
  return out;
}

function appendContent(parts: GenAIPart[], content: ChatMessageParam['content']): void {
  if (typeof content === 'string') {
    parts.push({ type: 'text', content });
    return;
  }
  if (!Array.isArray(content)) return;
  for (const part of content as readonly ChatContentPartParam[]) {
    const converted = part && typeof part === 'object' ? toPart(part) : undefined;
    if (converted) parts.push(converted);
  }
}

function toPart(part: ChatContentPartParam): GenAIPart | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'text', content: String(part.text ?? '') };
    case 'refusal':
      return { type: 'refusal', content: String(part.refusal ?? '') };
    case 'image_url': {
      const url = part.image_url?.url;
      if (typeof url !== 'string') return undefined;
      return fromUrl(url, 'image');
    }
    case 'input_audio': {
      const audio = part.input_audio;
      if (!audio || typeof audio.data !== 'string') return undefined;
      const blob: GenAIPart = { type: 'blob', modality: 'audio', content: audio.data };
      const mimeType = audioMimeType(audio.format);
      if (mimeType) blob.mime_type = mimeType;
      return blob;
    }
    case 'file': {
      const file = part.file;
      if (file && typeof file.file_id === 'string') return { type: 'file', modality: 'document', file_id: file.file_id };
      if (file && typeof file.file_data === 'string') {
        // openai takes the file's bytes as a data: URL or as bare base64; bare base64 is no URI.
        return file.file_data.startsWith('data:') ? fromUrl(file.file_data, 'document') : { type: 'blob', modality: 'document', content: file.file_data };
      }
      return undefined;
    }
    default:
      // Keep parts weft does not know by their type, without their payload.
      return typeof part.type === 'string' ? { type: part.type } : undefined;
  }
}

/** The IANA media type of an OpenAI audio format (`mp3` is `audio/mpeg`); undefined when none is given. */
function audioMimeType(format: unknown): string | undefined {
  if (typeof format !== 'string' || !format) return undefined;
  if (format === 'mp3') return 'audio/mpeg';
  if (format === 'pcm16') return 'audio/pcm';
  return `audio/${format}`;
}

/** A spoken answer: its audio as a blob part and its transcript as text, so that the answer reads in the trace. */
function appendAudio(parts: GenAIPart[], audio: ChatResponseMessage['audio']): void {
  if (!audio || typeof audio !== 'object') return;
  if (typeof audio.transcript === 'string' && audio.transcript) parts.push({ type: 'text', content: audio.transcript });
  if (typeof audio.data === 'string' && audio.data) parts.push({ type: 'blob', modality: 'audio', content: audio.data });
}

/** `data:` URLs become blob parts (their base64 content), others uri parts. */
function fromUrl(url: string, modality: string): GenAIPart {
  const match = /^data:([^;,]+)?(?:;[^,]*)?;base64,/.exec(url);
  if (match) {
    const blob: GenAIPart = { type: 'blob', modality, content: url.slice(match[0].length) };
    if (match[1]) blob.mime_type = match[1];
    return blob;
  }
  return { type: 'uri', modality, uri: url };
}

function appendToolCalls(
  parts: GenAIPart[],
  toolCalls: readonly ChatToolCall[] | undefined | null,
  functionCall: { readonly name?: string; readonly arguments?: string } | null | undefined,
): void {
  if (Array.isArray(toolCalls)) {
    for (const call of toolCalls as readonly ChatToolCall[]) {
      if (!call || typeof call !== 'object') continue;
      if (call.function) {
        parts.push(toolCallPart(call.id, call.function.name, call.function.arguments));
      } else if (call.custom) {
        parts.push({ type: 'tool_call', id: call.id, name: String(call.custom.name ?? ''), arguments: call.custom.input });
      }
    }
  }
  if (functionCall && typeof functionCall === 'object') {
    parts.push(toolCallPart(undefined, functionCall.name, functionCall.arguments));
  }
}

function toolCallPart(id: string | undefined, name: unknown, args: unknown): GenAIPart {
  const part: GenAIPart = { type: 'tool_call', name: typeof name === 'string' ? name : '' };
  if (typeof id === 'string') part.id = id;
  if (args !== undefined) part.arguments = parseArguments(args);
  return part;
}

/** Semconv expects tool arguments as an object: parse JSON text when it is valid, else keep the text. */
function parseArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  const trimmed = args.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return args;
  try {
    return JSON.parse(trimmed);
  } catch {
    return args;
  }
}

function contentAsText(content: ChatMessageParam['content']): unknown {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content ?? null;
  return (content as readonly ChatContentPartParam[])
    .map((part) => (part && typeof part.text === 'string' ? part.text : ''))
    .join('');
}
