/** The chat-completions wire shapes the offline model reads and writes (OpenAI format). */

/** A content part of a message; only text parts carry meaning for the offline model. */
export interface ContentPart {
  type: string;
  text?: string;
  [key: string]: unknown;
}

/** A tool call the assistant made. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** One message of the conversation. */
export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

/** A function tool offered to the model. */
export interface FunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: JsonSchema; strict?: boolean };
}

/** The part of JSON Schema the offline model reads to fill tool arguments. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  description?: string;
}

/** The request fields the offline model uses; others are accepted and ignored. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean | null } | null;
  tools?: FunctionTool[] | null;
  tool_choice?: 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } } | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  n?: number | null;
  response_format?: { type: string } | null;
  [key: string]: unknown;
}

/** Token counts of one completion. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** What the offline model decided to answer. */
export type Answer =
  | { kind: 'text'; content: string; finishReason: 'stop' | 'length' }
  | { kind: 'tool_call'; call: ToolCall };
