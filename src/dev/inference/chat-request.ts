import { HttpError } from '../http.js';
import type { ChatRequest } from './chat-types.js';
import { isObjectRecord } from '../../is-object-record.js';

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

function invalid(message: string, param: string): HttpError {
  return new HttpError(400, message, { type: 'invalid_request_error', param, code: 'invalid_value' });
}

function positiveInt(body: Record<string, unknown>, name: string, max = Number.MAX_SAFE_INTEGER): void {
  const value = body[name];
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw invalid(`'${name}' must be an integer between 1 and ${max}.`, name);
  }
}

/**
 * Checks a chat-completions body the way an OpenAI-compatible server does and answers 400s in OpenAI's
 * error shape (`{error: {message, type, param, code}}`), naming the offending parameter.
 */
export function parseChatRequest(body: unknown): ChatRequest {
  if (!isObjectRecord(body)) throw invalid('The request body must be a JSON object.', 'body');
  if (typeof body.model !== 'string' || body.model.trim() === '') {
    throw invalid("'model' is required and must be a non-empty string.", 'model');
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw invalid("'messages' is required and must be a non-empty array.", 'messages');
  }
  body.messages.forEach((m, i) => {
    if (!isObjectRecord(m)) throw invalid(`messages[${i}] must be an object.`, `messages[${i}]`);
    if (typeof m.role !== 'string' || !ROLES.has(m.role)) {
      throw invalid(`messages[${i}].role must be one of ${[...ROLES].join(', ')}.`, `messages[${i}].role`);
    }
    const content = m.content;
    if (content !== undefined && content !== null && typeof content !== 'string' && !Array.isArray(content)) {
      throw invalid(`messages[${i}].content must be a string or an array of content parts.`, `messages[${i}].content`);
    }
    if (m.role === 'tool' && typeof m.tool_call_id !== 'string') {
      throw invalid(`messages[${i}].tool_call_id is required for a tool message.`, `messages[${i}].tool_call_id`);
    }
    if (Array.isArray(content)) {
      content.forEach((part, j) => {
        if (!isObjectRecord(part) || typeof part.type !== 'string') {
          throw invalid(`messages[${i}].content[${j}] must be a content part with a type.`, `messages[${i}].content[${j}]`);
        }
      });
    }
    if (m.tool_calls !== undefined && m.tool_calls !== null) {
      if (!Array.isArray(m.tool_calls)) throw invalid(`messages[${i}].tool_calls must be an array.`, `messages[${i}].tool_calls`);
      m.tool_calls.forEach((call, j) => {
        const fn = isObjectRecord(call) ? call.function : undefined;
        if (!isObjectRecord(fn) || typeof fn.name !== 'string' || typeof fn.arguments !== 'string') {
          throw invalid(
            `messages[${i}].tool_calls[${j}] must be {id, type: "function", function: {name, arguments}}.`,
            `messages[${i}].tool_calls[${j}]`,
          );
        }
      });
    }
  });
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) throw invalid("'tools' must be an array.", 'tools');
    body.tools.forEach((t, i) => {
      const fn = isObjectRecord(t) ? t.function : undefined;
      if (!isObjectRecord(t) || t.type !== 'function' || !isObjectRecord(fn) || typeof fn.name !== 'string' || fn.name === '') {
        throw invalid(`tools[${i}] must be {type: "function", function: {name, ...}}.`, `tools[${i}]`);
      }
    });
  }
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') {
    throw invalid("'stream' must be a boolean.", 'stream');
  }
  if (body.stream_options !== undefined && body.stream_options !== null && !isObjectRecord(body.stream_options)) {
    throw invalid("'stream_options' must be an object.", 'stream_options');
  }
  const choice = body.tool_choice;
  if (choice !== undefined && choice !== null && !['none', 'auto', 'required'].includes(choice as string)) {
    const name = isObjectRecord(choice) && isObjectRecord(choice.function) ? choice.function.name : undefined;
    const tools = Array.isArray(body.tools) ? (body.tools as { function: { name: string } }[]) : [];
    if (typeof name !== 'string' || !tools.some((t) => t.function.name === name)) {
      throw invalid("'tool_choice' must be none, auto, required, or name one of the offered tools.", 'tool_choice');
    }
  }
  positiveInt(body, 'max_tokens');
  positiveInt(body, 'max_completion_tokens');
  positiveInt(body, 'n', 8);
  return body as unknown as ChatRequest;
}
