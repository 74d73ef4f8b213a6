import type { Span } from '@opentelemetry/api';
import { reportOnce } from '../diagnostics.js';
import { WeftConfigError } from './errors.js';

// The content settings the chat instrumentation and weft's own spans (op(), withSpan()) share: what is recorded,
// read from one set of environment variables, and how long an attribute may be. Both sides import them from here,
// so tracing does not import the instrumentation for them.

/** What is recorded: `true` (or `'all'`) both sides, `'input'`, `'output'`, or `false` (`'none'`) neither. */
export type CaptureContent = boolean | 'all' | 'input' | 'output' | 'none';

/** The sides a {@link CaptureContent} records. */
export interface CaptureSides {
  readonly input: boolean;
  readonly output: boolean;
}

/** Environment variables of the content settings. */
const CONTENT_ENV = {
  captureContent: 'WEFT_CAPTURE_CONTENT',
  otelCaptureContent: 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT',
  spanAttributeLengthLimit: 'OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT',
  attributeLengthLimit: 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT',
} as const;

/** Default longest content attribute, in characters: of the chat instrumentation's and of weft's own spans. */
export const DEFAULT_MAX_ATTRIBUTE_LENGTH = 262_144;

/** The environment a setting is read from: `process.env`, or a test's own. */
export type Env = Record<string, string | undefined>;

const BOTH = { input: true, output: true } as const;
const NEITHER = { input: false, output: false } as const;
const CAPTURE_SIDES = new Map<unknown, CaptureSides>([
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
export function captureSides(capture: CaptureContent): CaptureSides {
  const sides = CAPTURE_SIDES.get(capture);
  if (sides) return sides;
  throw new WeftConfigError(
    'captureContent',
    CONTENT_ENV.captureContent,
    `weft: option \`captureContent\` must be true, false, 'all', 'input', 'output' or 'none', got ${JSON.stringify(capture)}.`,
  );
}

/** Values of `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`, as the GenAI instrumentations read them. */
const OTEL_CAPTURE_ON = ['true', '1', 'yes', 'span_only', 'span_and_event'];
const OTEL_CAPTURE_OFF = ['false', '0', 'no', 'no_content', 'event_only'];

/**
 * The sides the option records, else the environment's setting, else both. A value of the shared OTel variable
 * weft cannot read records nothing: whoever set it meant to change the default, and `off` or `disabled` most likely
 * means to keep prompts out of the traces.
 * @throws {WeftConfigError} for an option {@link captureSides} refuses, or a `WEFT_CAPTURE_CONTENT` weft cannot read.
 */
export function resolveCaptureSides(option: CaptureContent | undefined, env: Env = process.env): CaptureSides {
  return captureSides(resolveCapture(option, env));
}

function resolveCapture(option: CaptureContent | undefined, env: Env): CaptureContent {
  if (option !== undefined) return option;
  const weft = env[CONTENT_ENV.captureContent]?.trim().toLowerCase();
  if (weft) {
    const byName: Record<string, CaptureContent> = { all: true, true: true, input: 'input', output: 'output', none: false, false: false };
    const value = byName[weft];
    if (value === undefined) {
      throw new WeftConfigError(
        'captureContent',
        CONTENT_ENV.captureContent,
        `weft: env ${CONTENT_ENV.captureContent} must be one of all, input, output, none; got "${weft}".`,
      );
    }
    return value;
  }
  const otel = env[CONTENT_ENV.otelCaptureContent]?.trim().toLowerCase();
  if (otel) {
    if (OTEL_CAPTURE_ON.includes(otel)) return true;
    if (OTEL_CAPTURE_OFF.includes(otel)) return false;
    // The variable is shared with other instrumentations, so an unknown value is theirs to reject, not ours: warned
    // about, not thrown.
    reportOnce(
      'otel-capture-env',
      `cannot read ${CONTENT_ENV.otelCaptureContent}="${otel}" (expected one of ${[...OTEL_CAPTURE_ON, ...OTEL_CAPTURE_OFF].join(', ')}): no content is recorded (chat messages, op inputs and outputs) until it is one of those, or ${CONTENT_ENV.captureContent} is set.`,
    );
    return false;
  }
  return true;
}

/**
 * `asked`, capped by the SDK's attribute length limit from the environment: the SDK cuts longer values without
 * regard for JSON, so its limit caps whatever was asked for.
 */
export function withinEnvLengthLimit(asked: number, env: Env = process.env): number {
  for (const name of [CONTENT_ENV.spanAttributeLengthLimit, CONTENT_ENV.attributeLengthLimit]) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const value = Number(raw);
    if (Number.isInteger(value) && value > 0) return Math.min(asked, value);
  }
  return asked;
}

/**
 * The SDK's attribute length limit on this span, from its provider's `spanLimits` or the environment; undefined
 * for none, or for a span that is not the SDK's (the environment's limit still applies then).
 */
export function sdkLengthLimit(span: Span): number | undefined {
  // A span of the 1.x and 2.x SDKs keeps the limit in a field of its own; one of the 3.x SDK only in its limits.
  const fields = span as { _attributeValueLengthLimit?: unknown; _spanLimits?: { attributeValueLengthLimit?: unknown } };
  const limit = fields._attributeValueLengthLimit ?? fields._spanLimits?.attributeValueLengthLimit;
  return typeof limit === 'number' && limit > 0 && Number.isFinite(limit) ? limit : undefined;
}

/**
 * The span's own attribute length `limit` when it is tighter than the `maxAttributeLength` a setting asks for, else
 * undefined (the setting fits as it is). A provider's `spanLimits` set in code, which the environment does not show,
 * can be tighter; the SDK would cut longer JSON mid-way.
 */
export function tighterSpanLimit(limit: number | undefined, maxAttributeLength: number): number | undefined {
  return limit !== undefined && limit < maxAttributeLength ? limit : undefined;
}

/**
 * `make(of, limit)`, made once per object and tighter span limit, then reused: a provider has one limit, and every
 * span of a scope or call shares it. Held by the object weakly, so a scope or config let go takes its fits with it.
 */
export function oncePerLimit<K extends object, V>(make: (of: K, limit: number) => V): (of: K, limit: number) => V {
  const made = new WeakMap<K, Map<number, V>>();
  return (of, limit) => {
    let byLimit = made.get(of);
    if (!byLimit) {
      byLimit = new Map();
      made.set(of, byLimit);
    }
    let value = byLimit.get(limit);
    if (value === undefined) {
      value = make(of, limit);
      byLimit.set(limit, value);
    }
    return value;
  };
}
