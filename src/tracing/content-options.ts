import type { Span } from '@opentelemetry/api';
import {
  type CaptureContent,
  captureSides,
  DEFAULT_MAX_ATTRIBUTE_LENGTH,
  resolveCaptureSides,
  sdkLengthLimit,
  tighterSpanLimit,
  withinEnvLengthLimit,
} from '../config/content.js';
import { WeftConfigError } from '../config/index.js';
import { reportOnce } from '../diagnostics.js';

/**
 * Rewrites or redacts a value before it is recorded: the object of named arguments (`'input'`) or the return
 * value (`'output'`; for generators, the collected yields). Return a replacement, `null` to record nothing, or
 * `undefined` to keep the value as it is. Do not edit the value in place: it is the app's own data (the chat
 * instrumentation's `redactContent` may, as it is given weft's own copy of the messages). If the hook throws, the
 * value is left out (fail closed), as there.
 */
export type ValueRedactor = (value: unknown, direction: 'input' | 'output', info: { readonly spanName: string }) => unknown;

/**
 * Privacy and size settings of `op()`, `withSpan()` and span handles, named as the chat instrumentation's
 * (`captureContent`, `redactContent`, `maxAttributeLength`) and read from the same environment variables.
 * Set them for the process with {@link configureTracing}, or per op.
 */
export interface ContentOptions {
  /**
   * Record inputs and outputs: `true` (or `'all'`) both, `'input'`, `'output'`, or `false` (`'none'`) neither
   * (spans keep their names, nesting, timing, errors and custom attributes). Default: env `WEFT_CAPTURE_CONTENT`
   * (`all` | `input` | `output` | `none`), else `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`, else true.
   */
  captureContent?: CaptureContent | undefined;
  /** Rewrites values before they are recorded, e.g. to mask e-mail addresses. See {@link ValueRedactor}. */
  redactContent?: ValueRedactor | undefined;
  /**
   * Longest an `inputs` or `output` attribute may be, in characters (a positive integer); longer values are cut
   * with markers and stay valid JSON, and a value that cannot fit even cut is left out. The SDK's own attribute
   * length limit caps it. Default: that limit from the environment when set, else 262144.
   */
  maxAttributeLength?: number | undefined;
}

/** The settings after defaults. */
export interface ResolvedContentOptions {
  readonly captureInput: boolean;
  readonly captureOutput: boolean;
  readonly redactContent: ValueRedactor | undefined;
  readonly maxAttributeLength: number;
}

// Room for truncation markers and closing brackets, so the JSON stays under an SDK limit and is never cut by it.
const MARKER_ROOM = 1024;

function contentOptionsFromEnv(): ResolvedContentOptions {
  try {
    const sides = resolveCaptureSides(undefined);
    return {
      captureInput: sides.input,
      captureOutput: sides.output,
      redactContent: undefined,
      maxAttributeLength: withinEnvLengthLimit(DEFAULT_MAX_ATTRIBUTE_LENGTH),
    };
  } catch (error) {
    // register() refuses a malformed variable; without it (an app's own NodeSDK) ops must not start throwing because
    // of it. What the variable meant is unknown, so nothing is recorded (fail closed): better no inputs than a prompt
    // someone meant to keep out of the traces.
    const why = error instanceof WeftConfigError ? error.message.replace(/^weft: /, '') : `its settings could not be read (${error instanceof Error ? error.name : typeof error}).`;
    reportOnce('content-settings', `${why} No content is recorded: op inputs and outputs are left out until it is fixed.`);
    return { captureInput: false, captureOutput: false, redactContent: undefined, maxAttributeLength: DEFAULT_MAX_ATTRIBUTE_LENGTH };
  }
}

// Keyed on globalThis so that the ESM and CommonJS copies of weft in one process share one setting.
const KEY = Symbol.for('weft.tracing.content-options');
const holder = globalThis as { [KEY]?: ResolvedContentOptions };

/** The process-wide content settings: the environment's, unless {@link configureTracing} changed them. */
export function contentOptions(): ResolvedContentOptions {
  holder[KEY] ??= contentOptionsFromEnv();
  return holder[KEY];
}

/**
 * Sets process-wide privacy and size settings for `op()`, `withSpan()` and `currentSpan()`, over the
 * environment's. Options given to one op win over these. Returns the settings that applied before, so they can
 * be restored.
 *
 * @example
 * configureTracing({ captureContent: 'input', redactContent: (v) => maskEmails(v) });
 */
export function configureTracing(options: ContentOptions): ResolvedContentOptions {
  checkContentOptions(options);
  const previous = contentOptions();
  holder[KEY] = resolveContentOptions(options, contentOptionsFromEnv());
  return previous;
}

/** Restores settings returned by {@link configureTracing}. */
export function restoreTracing(settings: ResolvedContentOptions): void {
  holder[KEY] = settings;
}

/**
 * Checks the options an app gives `op()`, `withSpan()`, `@traced()` or {@link configureTracing}, where they are
 * given, so a mistake shows at once rather than as calls recorded without content.
 *
 * Any positive length will do, where chat's needs 256 (room for a message's structure and its marker): an op's value
 * too long for it is recorded as markers alone, or not at all (see {@link withinLimit}), never as broken JSON.
 *
 * @throws {WeftConfigError} for a `captureContent` weft does not know, or a `maxAttributeLength` that is not a
 *   positive integer.
 */
export function checkContentOptions(options: ContentOptions | undefined): void {
  if (options?.captureContent !== undefined) captureSides(options.captureContent);
  const length = options?.maxAttributeLength;
  if (length !== undefined && !(Number.isInteger(length) && length > 0)) {
    throw new WeftConfigError(
      'maxAttributeLength',
      undefined,
      `weft: option \`maxAttributeLength\` must be a positive integer (characters), got ${String(length)}.`,
    );
  }
}

/** Applies per-op overrides over a base (default: the process-wide settings). */
export function resolveContentOptions(
  options: ContentOptions | undefined,
  base: ResolvedContentOptions = contentOptions(),
): ResolvedContentOptions {
  if (!options) return base;
  const capture = options.captureContent === undefined ? undefined : captureSides(options.captureContent);
  return {
    captureInput: capture === undefined ? base.captureInput : capture.input,
    captureOutput: capture === undefined ? base.captureOutput : capture.output,
    redactContent: options.redactContent ?? base.redactContent,
    maxAttributeLength: options.maxAttributeLength ?? base.maxAttributeLength,
  };
}

/**
 * `settings` within the span's own attribute length limit, when that is tighter: a per-op `maxAttributeLength`
 * can ask for more than the SDK keeps (its environment variables, or a provider's `spanLimits` set in code).
 */
export function fitToSpan(settings: ResolvedContentOptions, span: Span): ResolvedContentOptions {
  const limit = tighterSpanLimit(sdkLengthLimit(span), settings.maxAttributeLength);
  if (limit === undefined) return settings;
  return { ...settings, maxAttributeLength: limit };
}

/**
 * The text `write(budget)` gives, at most `limit` characters long: the SDK cuts a longer attribute without regard
 * for JSON. `write` (`safeStringify`, `scrubAndCut`) may run over its budget by its markers and closing brackets, so the
 * budget leaves room for them; if the text still runs over (a small limit, deep nesting), `write` is asked again
 * with the overrun taken off, then with no budget at all (markers only). `undefined` when even that does not
 * fit: better no attribute than broken JSON.
 */
export function withinLimit(limit: number, write: (budget: number) => string): string | undefined {
  let budget = limit >= 2 * MARKER_ROOM ? limit - MARKER_ROOM : Math.floor(limit / 2);
  for (let attempt = 0; attempt < 3; attempt++) {
    const text = write(budget);
    if (text.length <= limit) return text;
    budget = attempt === 0 ? Math.max(0, budget - (text.length - limit)) : 0;
  }
  return undefined;
}
