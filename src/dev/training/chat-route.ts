import { HttpError, type ValidationIssue } from '../http.js';
import type { ChatRequest } from '../inference/chat-types.js';
import { serveCompletion } from '../inference/chat-routes.js';
import { OFFLINE_MODEL_IDS } from '../inference/offline-model.js';
import type { Route } from '../router.js';
import { checkBody, type FieldSpec } from '../validate.js';

const optString = { type: 'string', nullable: true } as const;
const optInt = { type: 'integer', nullable: true } as const;

/**
 * The training service's `ChatCompletionRequest` (reference §1.8), as far as the offline model reads it: only
 * `messages` is required, `model` may be left out or null, and any other field is accepted.
 */
const CHAT_FIELDS: Record<string, FieldSpec> = {
  model: optString,
  messages: {
    type: 'array',
    required: true,
    items: {
      type: 'object',
      fields: {
        role: { type: 'string' },
        name: optString,
        tool_call_id: optString,
        tool_calls: {
          type: 'array',
          nullable: true,
          items: {
            type: 'object',
            fields: { function: { type: 'object', required: true, fields: { name: { type: 'string', required: true }, arguments: { type: 'string', required: true } } } },
          },
        },
      },
    },
  },
  tools: {
    type: 'array',
    nullable: true,
    items: {
      type: 'object',
      fields: {
        type: { type: 'string', required: true },
        function: { type: 'object', required: true, fields: { name: { type: 'string', required: true }, parameters: { type: 'object', nullable: true } } },
      },
    },
  },
  tool_choice: { type: 'any' },
  stream: { type: 'boolean', nullable: true },
  stream_options: { type: 'object', nullable: true, fields: { include_usage: { type: 'boolean', nullable: true } } },
  response_format: { type: 'object', nullable: true, fields: { type: { type: 'string', required: true } } },
  n: optInt,
  max_tokens: optInt,
  max_completion_tokens: optInt,
};

const TOOL_CHOICES = ['none', 'auto', 'required'];

// What the field types cannot say: content that is text or a list of parts, counts of at least 1, and a tool
// choice that is a mode or names a function.
function shapeIssues(body: Record<string, unknown>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  (body.messages as Record<string, unknown>[]).forEach((message, i) => {
    const content = message.content;
    const parts = Array.isArray(content) && content.every((part) => typeof part === 'object' && part !== null && !Array.isArray(part));
    if (content !== undefined && content !== null && typeof content !== 'string' && !parts) {
      issues.push({ loc: ['body', 'messages', i, 'content'], msg: 'Input should be a valid string or a list of content parts', type: 'value_error' });
    }
  });
  for (const name of ['n', 'max_tokens', 'max_completion_tokens']) {
    const value = body[name];
    if (typeof value === 'number' && value < 1) {
      issues.push({ loc: ['body', name], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' });
    }
  }
  const choice = body.tool_choice as { function?: { name?: unknown } } | string | null | undefined;
  const named = typeof choice === 'object' && choice !== null && typeof choice.function?.name === 'string';
  if (choice !== undefined && choice !== null && !TOOL_CHOICES.includes(choice as string) && !named) {
    issues.push({ loc: ['body', 'tool_choice'], msg: "Input should be 'none', 'auto', 'required' or {type: 'function', function: {name}}", type: 'value_error' });
  }
  return issues;
}

/**
 * `POST /v1/chat/completions/` of the training service, answered by the offline model with FastAPI's 422
 * `{detail}` for a bad body (reference §1.6, §1.8). Under the `/v1` weft dev shares with the inference service,
 * `/v1/chat/completions` is the inference service's, and this trailing-slash twin the one path that tells the two
 * apart; under the training service's own `/training/v1` both are this route (see `trainingRoutes`).
 */
export function trainingChatRoute(): Route {
  return {
    method: 'POST',
    path: '/v1/chat/completions/',
    handler: async (c) => {
      const body = checkBody<Record<string, unknown>>(await c.json(), { fields: CHAT_FIELDS });
      const issues = shapeIssues(body);
      if (issues.length > 0) throw new HttpError(422, issues);
      // Without a model the service answers with the one it serves; here, the offline model.
      serveCompletion(c.res, { ...body, model: typeof body.model === 'string' ? body.model : OFFLINE_MODEL_IDS[0] } as ChatRequest);
    },
  };
}
