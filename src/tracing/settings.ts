import { DEFAULT_MAX_JSON_LENGTH } from './serialize.js';

/** Which value a {@link RedactHook} is asked about. */
export interface RedactInfo {
  /** `inputs`: the object of named arguments; `output`: the return value (for generators, the collected yields). */
  readonly field: 'inputs' | 'output';
  /** The span's name (the op name). */
  readonly spanName: string;
}

/**
 * Called with each input object and output before it is serialized; returns what to record instead. Throwing
 * records nothing for that value (fail closed). Must not mutate its argument: it is the app's own data.
 */
export type RedactHook = (value: unknown, info: RedactInfo) => unknown;

/** Privacy and size settings of `op()`, `withSpan()` and span handles. Each op may override them. */
export interface ContentOptions {
  /**
   * Record inputs and outputs. Default true. With false, spans keep their names, nesting, timing, errors and
   * custom attributes, but no argument or return values.
   */
  captureContent?: boolean;
  /** Rewrites values before they are recorded, e.g. to mask e-mail addresses. */
  redact?: RedactHook;
  /** Approximate bound on each recorded value's JSON text, in characters. Default 100,000. */
  maxValueLength?: number;
}

/** The settings after defaults. */
export interface ResolvedContentOptions {
  readonly captureContent: boolean;
  readonly redact: RedactHook | undefined;
  readonly maxValueLength: number;
}

const DEFAULTS: ResolvedContentOptions = {
  captureContent: true,
  redact: undefined,
  maxValueLength: DEFAULT_MAX_JSON_LENGTH,
};

// Keyed on globalThis so that the ESM and CommonJS copies of weft in one process share one setting.
const KEY = Symbol.for('weft.tracing.content-options');
const holder = globalThis as { [KEY]?: ResolvedContentOptions };

/** The process-wide content settings (what {@link configureTracing} last set). */
export function contentOptions(): ResolvedContentOptions {
  return holder[KEY] ?? DEFAULTS;
}

/**
 * Sets process-wide privacy and size settings for `op()`, `withSpan()` and `currentSpan()`. Options given to one
 * op win over these. Returns the settings that applied before, so a test can restore them.
 *
 * @example
 * configureTracing({ redact: (v) => JSON.parse(JSON.stringify(v).replaceAll(/\S+@\S+/g, '<email>')) });
 */
export function configureTracing(options: ContentOptions): ContentOptions {
  const previous = contentOptions();
  holder[KEY] = resolveContentOptions(options, DEFAULTS);
  return { ...previous };
}

/** Applies per-op overrides over a base (default: the process-wide settings). */
export function resolveContentOptions(
  options: ContentOptions | undefined,
  base: ResolvedContentOptions = contentOptions(),
): ResolvedContentOptions {
  if (!options) return base;
  return {
    captureContent: options.captureContent ?? base.captureContent,
    redact: options.redact ?? base.redact,
    maxValueLength: options.maxValueLength ?? base.maxValueLength,
  };
}
