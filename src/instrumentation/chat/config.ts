import { kindOf, WeftConfigError } from '../../config/index.js';
import { reportOnce } from '../../diagnostics.js';
import type { GenAIMessage } from './types.js';

/** What is recorded: `true` (or `'all'`) both sides, `'input'`, `'output'`, or `false` (`'none'`) neither. */
export type CaptureContent = boolean | 'all' | 'input' | 'output' | 'none';

const BOTH = { input: true, output: true } as const;
const NEITHER = { input: false, output: false } as const;
const CAPTURE_SIDES = new Map<unknown, { readonly input: boolean; readonly output: boolean }>([
  [true, BOTH],
  ['all', BOTH],
  ['input', { input: true, output: false }],
  ['output', { input: false, output: true }],
  [false, NEITHER],
  ['none', NEITHER],
]);

/**
 * Which sides a {@link CaptureContent} records. The option takes the environment variable's words too (`all`,
 * `none`), so a value can be moved between the two unchanged.
 * @throws {WeftConfigError} for anything else, naming `captureContent` and its variable.
 */
export function captureSides(capture: CaptureContent): { readonly input: boolean; readonly output: boolean } {
  const sides = CAPTURE_SIDES.get(capture);
  if (sides) return sides;
  throw new WeftConfigError(
    'captureContent',
    CHAT_TRACING_ENV.captureContent,
    `weft: option \`captureContent\` must be true, false, 'all', 'input', 'output' or 'none', got ${JSON.stringify(capture)}.`,
  );
}

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
   * `…[truncated N chars]`; the JSON stays valid. Default 32768.
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

/** Environment variables read by {@link resolveChatTracingConfig}. */
export const CHAT_TRACING_ENV = {
  captureContent: 'WEFT_CAPTURE_CONTENT',
  otelCaptureContent: 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT',
  spanAttributeLengthLimit: 'OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT',
  attributeLengthLimit: 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT',
} as const;

const DEFAULT_MAX_MESSAGE_LENGTH = 32_768;
/** Default of {@link ChatTracingConfig.maxAttributeLength}, also the default of weft's own spans. */
export const DEFAULT_MAX_ATTRIBUTE_LENGTH = 262_144;
/** Below this a message cannot hold even its structure and the truncation marker. */
const MIN_LENGTH = 256;

type Env = Record<string, string | undefined>;

/**
 * Applies defaults and environment variables to a {@link ChatTracingConfig}. Options win over the
 * environment. Throws {@link WeftConfigError} for a value weft cannot use.
 */
export function resolveChatTracingConfig(config: ChatTracingConfig = {}, env: Env = process.env): ResolvedChatTracingConfig {
  const sides = captureSides(resolveCapture(config.captureContent, env));
  // The SDK cuts longer values without regard for JSON, so its limit caps whatever was asked for.
  const sdkLimit = envLimit(env) ?? Number.POSITIVE_INFINITY;
  const maxAttributeLength = Math.min(
    checkLength(config.maxAttributeLength ?? DEFAULT_MAX_ATTRIBUTE_LENGTH, 'maxAttributeLength'),
    sdkLimit,
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

const fitted = new WeakMap<ResolvedChatTracingConfig, Map<number, ResolvedChatTracingConfig>>();

/**
 * `config` within a span's own attribute length limit, when that is tighter: a provider's `spanLimits` set in
 * code, which the environment does not show. The SDK would cut longer JSON mid-way. Made once per limit.
 */
export function fitToLengthLimit(config: ResolvedChatTracingConfig, limit: number | undefined): ResolvedChatTracingConfig {
  if (limit === undefined || limit >= config.maxAttributeLength) return config;
  let byLimit = fitted.get(config);
  if (!byLimit) {
    byLimit = new Map();
    fitted.set(config, byLimit);
  }
  let fit = byLimit.get(limit);
  if (!fit) {
    fit = { ...config, maxAttributeLength: limit, maxMessageLength: Math.min(config.maxMessageLength, limit) };
    byLimit.set(limit, fit);
  }
  return fit;
}

/** Values of `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`, as the GenAI instrumentations read them. */
const OTEL_CAPTURE_ON = ['true', '1', 'yes', 'span_only', 'span_and_event'];
const OTEL_CAPTURE_OFF = ['false', '0', 'no', 'no_content', 'event_only'];

/**
 * The option, else the environment's setting, else true; the caller's {@link captureSides} checks the option. A value
 * of the shared OTel variable weft cannot read records nothing: whoever set it meant to change the default, and
 * `off` or `disabled` most likely means to keep prompts out of the traces.
 */
function resolveCapture(option: CaptureContent | undefined, env: Env): CaptureContent {
  if (option !== undefined) return option;
  const weft = env[CHAT_TRACING_ENV.captureContent]?.trim().toLowerCase();
  if (weft) {
    const byName: Record<string, CaptureContent> = { all: true, true: true, input: 'input', output: 'output', none: false, false: false };
    const value = byName[weft];
    if (value === undefined) {
      throw new WeftConfigError(
        'captureContent',
        CHAT_TRACING_ENV.captureContent,
        `weft: env ${CHAT_TRACING_ENV.captureContent} must be one of all, input, output, none; got "${weft}".`,
      );
    }
    return value;
  }
  const otel = env[CHAT_TRACING_ENV.otelCaptureContent]?.trim().toLowerCase();
  if (otel) {
    if (OTEL_CAPTURE_ON.includes(otel)) return true;
    if (OTEL_CAPTURE_OFF.includes(otel)) return false;
    // The variable is shared with other instrumentations, so an unknown value is theirs to reject, not ours: warned
    // about, not thrown.
    reportOnce(
      'otel-capture-env',
      `cannot read ${CHAT_TRACING_ENV.otelCaptureContent}="${otel}" (expected one of ${[...OTEL_CAPTURE_ON, ...OTEL_CAPTURE_OFF].join(', ')}): no content is recorded (chat messages, op inputs and outputs) until it is one of those, or ${CHAT_TRACING_ENV.captureContent} is set.`,
    );
    return false;
  }
  return true;
}

function envLimit(env: Env): number | undefined {
  for (const name of [CHAT_TRACING_ENV.spanAttributeLengthLimit, CHAT_TRACING_ENV.attributeLengthLimit]) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const value = Number(raw);
    if (Number.isInteger(value) && value > 0) return value;
  }
  return undefined;
}

function checkLength(value: number, option: string): number {
  if (!Number.isInteger(value) || value < MIN_LENGTH) {
    const got = typeof value === 'number' ? String(value) : kindOf(value);
    throw new WeftConfigError(option, undefined, `weft: option \`${option}\` must be an integer ≥ ${MIN_LENGTH}, got ${got}.`);
  }
  return value;
}
