import { createHash } from 'node:crypto';
import type { Answer, ChatMessage, ChatRequest, FunctionTool, JsonSchema, ToolCall, Usage } from './chat-types.js';
import { countTokens, truncateTokens } from './tokenizer.js';

/**
 * The model ids `GET /v1/models` lists; the inference route serves these (and LoRA artifact URIs) and answers
 * 404 for any other, as the service does for a model it does not serve.
 */
export const OFFLINE_MODEL_IDS = ['weft-dev/offline-echo', 'meta-llama/Llama-3.1-8B-Instruct', 'OpenPipe/Qwen3-14B-Instruct'] as const;

/** The text of a message's content (text parts joined; other parts stand as `[type]`). */
function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part.type === 'text' ? (part.text ?? '') : `[${part.type}]`)).join(' ');
}

/**
 * The prompt as the offline model "sees" it: each message as `role: text` with its tool calls, then the
 * tools. Prompt tokens are counted on this text, so they grow with everything the request sends.
 */
function renderPrompt(request: ChatRequest): string {
  const lines = request.messages.map((m) => {
    const calls = (m.tool_calls ?? []).map((c) => ` ${c.function.name}(${c.function.arguments})`).join('');
    return `${m.role}: ${messageText(m)}${calls}`;
  });
  for (const tool of request.tools ?? []) {
    const f = tool.function;
    lines.push(`tool ${f.name}: ${f.description ?? ''} ${f.parameters ? JSON.stringify(f.parameters) : ''}`);
  }
  return lines.join('\n');
}

function nameForms(name: string): string[] {
  const spaced = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .toLowerCase();
  return [name.toLowerCase(), spaced];
}

function mentions(text: string, name: string): boolean {
  const lower = text.toLowerCase();
  return nameForms(name).some((form) => form !== '' && lower.includes(form));
}

const PREPOSITION = /\b(?:in|for|of|at|about|to|from|on|called|named|with)\s+/gi;

function stringArgument(schema: JsonSchema, text: string): string {
  if (Array.isArray(schema.enum)) {
    const hit = schema.enum.find((v) => typeof v === 'string' && text.toLowerCase().includes(v.toLowerCase()));
    return String(hit ?? schema.enum[0] ?? '');
  }
  const quoted = /["“']([^"”']+)["”']/.exec(text)?.[1];
  if (quoted) return quoted;
  // The words after the last preposition ("weather in Paris?" → "Paris"), up to the end of the clause.
  const last = [...text.matchAll(PREPOSITION)].at(-1);
  if (last?.index !== undefined) {
    const phrase = /^[^?.!,;:\n]+/.exec(text.slice(last.index + last[0].length))?.[0].trim();
    if (phrase) return phrase;
  }
  return text.trim();
}

/** Fills a tool's JSON-schema parameters from the user's words, deterministically. */
function deriveArguments(schema: JsonSchema | undefined, text: string): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  // Schemas come from the request as they are: anything that is not an object counts as absent.
  const isObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(schema) || !isObject(schema.properties)) return args;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  for (const [name, raw] of Object.entries(schema.properties)) {
    const prop: JsonSchema = isObject(raw) ? raw : {};
    const type = Array.isArray(prop.type) ? prop.type[0] : prop.type;
    if (type === 'number' || type === 'integer') {
      const n = /-?\d+(?:\.\d+)?/.exec(text)?.[0];
      if (n !== undefined) args[name] = type === 'integer' ? Math.trunc(Number(n)) : Number(n);
      else if (required.has(name)) args[name] = 0;
    } else if (type === 'boolean') {
      if (required.has(name) || /\b(yes|true|on)\b/i.test(text)) args[name] = /\b(yes|true|on)\b/i.test(text);
    } else if (type === 'string' || type === undefined) {
      args[name] = stringArgument(prop, text);
    } else if (required.has(name)) {
      args[name] = type === 'array' ? [] : type === 'object' ? {} : null;
    }
  }
  return args;
}

function chooseTool(request: ChatRequest, text: string): FunctionTool | undefined {
  const tools = request.tools ?? [];
  const choice = request.tool_choice;
  if (tools.length === 0 || choice === 'none') return undefined;
  if (choice && typeof choice === 'object') return tools.find((t) => t.function.name === choice.function.name);
  const named = tools.find((t) => mentions(text, t.function.name));
  if (named) return named;
  return choice === 'required' ? tools[0] : undefined;
}

const ARITHMETIC = /(-?\d+(?:\.\d+)?)\s*([-+*/×x÷]|plus|minus|times|divided by)\s*(-?\d+(?:\.\d+)?)/i;

function arithmetic(text: string): string | undefined {
  const m = ARITHMETIC.exec(text);
  if (!m) return undefined;
  const a = Number(m[1]);
  const b = Number(m[3]);
  const op = m[2]!.toLowerCase();
  let result: number;
  if (op === '+' || op === 'plus') result = a + b;
  else if (op === '-' || op === 'minus') result = a - b;
  else if (op === '*' || op === '×' || op === 'x' || op === 'times') result = a * b;
  else {
    if (b === 0) return `${m[1]} divided by 0 is undefined.`;
    result = a / b;
  }
  const shown = Number.isInteger(result) ? String(result) : String(Number(result.toFixed(6)));
  return `${m[1]} ${m[2]} ${m[3]} = ${shown}.`;
}

function toolNameFor(messages: ChatMessage[], toolCallId: string | undefined): string {
  for (const m of messages) {
    const call = m.tool_calls?.find((c) => c.id === toolCallId);
    if (call) return call.function.name;
  }
  return 'the tool';
}

function replyText(request: ChatRequest): string {
  const { messages } = request;
  const last = messages.at(-1);
  if (last?.role === 'tool' || last?.role === 'function') {
    const name = last.role === 'function' ? (last.name ?? 'the function') : toolNameFor(messages, last.tool_call_id);
    return `Here is what ${name} returned: ${messageText(last).trim()}`;
  }
  const user = [...messages].reverse().find((m) => m.role === 'user');
  const text = user ? messageText(user).trim() : '';
  if (text === '') return 'Hello! I am the weft dev offline model. Ask me something.';
  return arithmetic(text) ?? `You said: ${text}`;
}

function toolCallId(request: ChatRequest): string {
  return `call_${createHash('sha256').update(`${request.model}\n${renderPrompt(request)}`).digest('hex').slice(0, 24)}`;
}

/**
 * The offline "model": a few deterministic rules instead of weights.
 * - After a tool message, it reports the tool's result.
 * - When tools are offered and the last user message names one (or `tool_choice` picks one), it calls that
 *   tool, with arguments derived from the message.
 * - A simple arithmetic question (`2 + 3`) gets its result; anything else is echoed back.
 * `max_tokens`/`max_completion_tokens` cut the text (finish reason `length`); `response_format` of
 * `json_object`/`json_schema` wraps it in JSON.
 */
export function answer(request: ChatRequest): Answer {
  const last = request.messages.at(-1);
  if (last?.role === 'user') {
    const tool = chooseTool(request, messageText(last));
    if (tool) {
      const call: ToolCall = {
        id: toolCallId(request),
        type: 'function',
        function: {
          name: tool.function.name,
          arguments: JSON.stringify(deriveArguments(tool.function.parameters, messageText(last))),
        },
      };
      return { kind: 'tool_call', call };
    }
  }
  let content = replyText(request);
  const format = request.response_format?.type;
  if (format === 'json_object' || format === 'json_schema') content = JSON.stringify({ answer: content });
  const max = request.max_completion_tokens ?? request.max_tokens;
  if (typeof max === 'number' && countTokens(content) > max) {
    return { kind: 'text', content: truncateTokens(content, max), finishReason: 'length' };
  }
  return { kind: 'text', content, finishReason: 'stop' };
}

/** The usage of an answer, counted with the same tokenizer for prompt and completion. */
export function usageOf(request: ChatRequest, result: Answer, choices = 1): Usage {
  const prompt = countTokens(renderPrompt(request));
  const one =
    result.kind === 'text'
      ? countTokens(result.content)
      : countTokens(`${result.call.function.name} ${result.call.function.arguments}`);
  return { prompt_tokens: prompt, completion_tokens: one * choices, total_tokens: prompt + one * choices };
}
