import type { Instrumentation } from '@opentelemetry/instrumentation';
import { WeftConfigError } from '../../config/errors.js';
import { reportOnce } from '../../diagnostics.js';
import { OpenAIInstrumentation } from './instrumentation.js';
import type { OpenAIInstrumentationConfig } from './types.js';

// On globalThis, so that the ESM and CommonJS copies of weft in one process share one instrumentation.
const SHARED_KEY = Symbol.for('weft.openai.instrumentation');
const holder = globalThis as { [SHARED_KEY]?: OpenAIInstrumentation };

/**
 * The process's shared {@link OpenAIInstrumentation}, the one `register()` enables by default and
 * {@link instrumentOpenAI} patches with. Created on first use; `config`, when given, replaces its options.
 * Nothing where it cannot be made: see {@link makeInstrumentation}.
 */
export function sharedOpenAIInstrumentation(config?: OpenAIInstrumentationConfig): OpenAIInstrumentation | undefined {
  const existing = holder[SHARED_KEY];
  if (!existing) {
    const created = makeInstrumentation(config);
    if (created) holder[SHARED_KEY] = created;
    return created;
  }
  if (config) existing.setConfig(config);
  return existing;
}

/**
 * A new instrumentation, or nothing, said once, where OTel's base class cannot hook module loading: a test runner's
 * VM sandbox (vitest's `vmThreads` pool) has a `module` whose `require` throws. The app goes on untraced by it; a
 * bad option still throws, as it would anywhere.
 */
function makeInstrumentation(config: OpenAIInstrumentationConfig | undefined): OpenAIInstrumentation | undefined {
  try {
    return new OpenAIInstrumentation(config);
  } catch (error) {
    if (error instanceof WeftConfigError) throw error;
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    reportOnce(
      'openai-instrumentation-unavailable',
      `could not set up its openai instrumentation (${reason}), so openai calls are not traced; ops, withSpan() and the export work as usual. A test runner's VM sandbox, where OTel cannot hook the loading of modules, does this (vitest's vmThreads pool: its forks or threads pool does not).`,
    );
    return undefined;
  }
}

/** The shared instrumentation if something made it, without making it. */
export function existingSharedOpenAIInstrumentation(): OpenAIInstrumentation | undefined {
  return holder[SHARED_KEY];
}

/**
 * Traces an `openai` module the automatic hooks cannot see — a bundled app, a renamed package, or `openai`
 * imported before weft — by patching it through the shared instrumentation that `register()` enables.
 * Accepts the `OpenAI` class, the module, or a client. Safe to call more than once and before or after
 * `register()`. Returns the instrumentation (e.g. to `disable()` it), or `undefined`, with a warning, where it cannot
 * be made (a VM sandbox without a module loader, such as vitest's `vmThreads` pool).
 *
 * @example
 * import OpenAI from 'openai';
 * import { instrumentOpenAI, register } from 'weft';
 * instrumentOpenAI(OpenAI);
 * register();
 */
export function instrumentOpenAI(openai: unknown): OpenAIInstrumentation | undefined {
  const instrumentation = sharedOpenAIInstrumentation();
  instrumentation?.manuallyInstrument(openai);
  return instrumentation;
}

/**
 * weft's default instrumentations — today the shared {@link OpenAIInstrumentation} — for `register()` to enable
 * when the app gives no list. `config` configures the OpenAI instrumentation.
 *
 * @example
 * register({ instrumentations: [...weftInstrumentations({ captureContent: false }), myOtherInstrumentation] });
 */
export function weftInstrumentations(config?: OpenAIInstrumentationConfig): Instrumentation[] {
  const openai = sharedOpenAIInstrumentation(config);
  return openai ? [openai] : [];
}
