import {
  type CaptureContent,
  DEFAULT_MAX_ATTRIBUTE_LENGTH,
  type Env,
  oncePerLimit,
  resolveCaptureSides,
  tighterSpanLimit,
  withinEnvLengthLimit,
} from '../../config/content.js';
import { describeValue, kindOf, WeftConfigError } from '../../config/index.js';
import type { GenAIMessage } from './types.js';

export type { CaptureContent } from '../../config/content.js';

/**
 * Rewrites or redacts messages before they are recorded. Called once for the input side (the request's
 * messages, system messages included) and once for the output side (one message per choice), with messages
 * already in the GenAI schema. Return a new array to replace them, `null` to record none of them, or nothing
 * to keep them (you may edit them in place). If it throws, or returns anything else (an array holding
 * something that is not a `{ role, parts: [{ type, … }] }` message), that side's content is left out and the
 * rest of the span is recorded as usual.
 *
 * A part's `type` alone does not narrow it: another part may have any `type` (`GenAIGenericPart`), so check
 * its `content` too.
 *
 * @example
 * redactContent: (messages) => messages.map((m) => ({
 *   ...m,
 *   parts: m.parts.map((p) =>
 *     p.type === 'text' && typeof p.content === 'string' ? { ...p, content: p.content.replace(/\d{16}/g, '[card]') } : p,
 *   ),
 * }))
 */
export type ContentRedactor = (
  messages: GenAIMessage[],
  direction: 'input' | 'output',
) => GenAIMessage[] | null | undefined;

/** Options for how chat calls are recorded. Shared by the `openai` instrumentation and weft's own client. */
export interface ChatTracingConfig {
  /**
   * Record message content (`gen_ai.input.messages`, `gen_ai.system_instructions`, tool schemas in
   * `gen_ai.tool.definitions`, `gen_ai.output.messages`)? Default: env `WEFT_CAPTURE_CONTENT`
   * (`all` | `input` | `output` | `none`), else env `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`
   * (`true` | `false`), else `true`. Model, parameters, usage and finish reasons are always recorded.
   */
  captureContent?: CaptureContent | undefined;
  /** A hook that may rewrite or redact messages before they are recorded. See {@link ContentRedactor}. */
  redactContent?: ContentRedactor | undefined;
  /**
   * Longest a single recorded message may be, in characters of its JSON. Longer text is cut and marked
   * `…[weft: N more chars]`; the JSON stays valid. Default 32768.
   */
  maxMessageLength?: number | undefined;
  /**
   * Longest a content attribute may be, in characters. Default 262144, and never more than the SDK's span
   * attribute length limit (`OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT`, `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`):
   * messages are shortened to fit rather than leaving the SDK to cut the JSON mid-way.
   */
  maxAttributeLength?: number | undefined;
  /**
   * On streamed calls that did not ask for usage, ask for it (`stream_options.include_usage`) so the span
   * has token counts, and hide the extra usage-only chunk (and the `usage: null` fields that come with it)
   * from the caller, who sees exactly the chunks they would have seen. Not done for servers that send usage
   * unasked (the platform's inference and training services). Turn off for servers that reject
   * `stream_options`, and for other servers that send usage unasked (a gateway set to): weft cannot tell their usage
   * chunk from the one it asked for, and would hide it. Default `true`.
   */
  requestStreamUsage?: boolean | undefined;
}

/** {@link ChatTracingConfig} with every default applied and checked; build it with {@link resolveChatTracingConfig}. */
export interface ResolvedChatTracingConfig {
  readonly captureInput: boolean;
  readonly captureOutput: boolean;
  readonly redactContent: ContentRedactor | undefined;
  readonly maxMessageLength: number;
  readonly maxAttributeLength: number;
  readonly requestStreamUsage: boolean;
}

const DEFAULT_MAX_MESSAGE_LENGTH = 32_768;
/** Below this a message cannot hold even its structure and the truncation marker. */
const MIN_LENGTH = 256;

/**
 * Applies defaults and environment variables (`CONTENT_ENV` in config/content.ts) to a {@link ChatTracingConfig}. Options win over the
 * environment. Throws {@link WeftConfigError} for a value weft cannot use.
 */
export function resolveChatTracingConfig(config: ChatTracingConfig = {}, env: Env = process.env): ResolvedChatTracingConfig {
  const sides = resolveCaptureSides(config.captureContent, env);
  const maxAttributeLength = withinEnvLengthLimit(
    checkLength(config.maxAttributeLength ?? DEFAULT_MAX_ATTRIBUTE_LENGTH, 'maxAttributeLength'),
    env,
  );
  const maxMessageLength = Math.min(
    checkLength(config.maxMessageLength ?? DEFAULT_MAX_MESSAGE_LENGTH, 'maxMessageLength'),
    maxAttributeLength,
  );
  if (config.redactContent !== undefined && typeof config.redactContent !== 'function') {
    throw new WeftConfigError('redactContent', undefined, `weft: option \`redactContent\` must be a function, got ${kindOf(config.redactContent)}.`);
  }
  // Not read as truthy: "no" from a config file would ask for usage chunks the app said not to.
  if (config.requestStreamUsage !== undefined && typeof config.requestStreamUsage !== 'boolean') {
    throw new WeftConfigError(
      'requestStreamUsage',
      undefined,
      `weft: option \`requestStreamUsage\` must be true or false, got ${kindOf(config.requestStreamUsage)}.`,
    );
  }
  return {
    captureInput: sides.input,
    captureOutput: sides.output,
    redactContent: config.redactContent,
    maxMessageLength,
    maxAttributeLength,
    requestStreamUsage: config.requestStreamUsage ?? true,
  };
}

/**
 * `config` within a span's own attribute length limit, when that is tighter: a provider's `spanLimits` set in
 * code, which the environment does not show. The SDK would cut longer JSON mid-way. Made once per limit.
 */
export function fitToLengthLimit(config: ResolvedChatTracingConfig, spanLimit: number | undefined): ResolvedChatTracingConfig {
  const limit = tighterSpanLimit(spanLimit, config.maxAttributeLength);
  return limit === undefined ? config : fittedConfig(config, limit);
}

const fittedConfig = oncePerLimit(
  (config: ResolvedChatTracingConfig, limit): ResolvedChatTracingConfig => ({
    ...config,
    maxAttributeLength: limit,
    maxMessageLength: Math.min(config.maxMessageLength, limit),
  }),
);

function checkLength(value: number, option: string): number {
  if (!Number.isInteger(value) || value < MIN_LENGTH) {
    throw new WeftConfigError(option, undefined, `weft: option \`${option}\` must be an integer ≥ ${MIN_LENGTH}, got ${describeValue(value)}.`);
  }
  return value;
}
