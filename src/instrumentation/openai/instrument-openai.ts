import type { Instrumentation } from '@opentelemetry/instrumentation';
import { OpenAIInstrumentation } from './instrumentation.js';
import type { OpenAIInstrumentationConfig } from './types.js';

// On globalThis, so that the ESM and CommonJS copies of weft in one process share one instrumentation.
const SHARED_KEY = Symbol.for('weft.openai.instrumentation');
const holder = globalThis as { [SHARED_KEY]?: OpenAIInstrumentation };

/**
 * The process's shared {@link OpenAIInstrumentation}, the one `register()` enables by default and
 * {@link instrumentOpenAI} patches with. Created on first use; `config`, when given, replaces its options.
 */
export function sharedOpenAIInstrumentation(config?: OpenAIInstrumentationConfig): OpenAIInstrumentation {
  const existing = holder[SHARED_KEY];
  if (!existing) {
    const created = new OpenAIInstrumentation(config);
    holder[SHARED_KEY] = created;
    return created;
  }
  if (config) existing.setConfig(config);
  return existing;
}

/** The shared instrumentation if something made it, without making it. */
export function existingSharedOpenAIInstrumentation(): OpenAIInstrumentation | undefined {
  return holder[SHARED_KEY];
}

/**
 * Traces an `openai` module the automatic hooks cannot see — a bundled app, a renamed package, or `openai`
 * imported before weft — by patching it through the shared instrumentation that `register()` enables.
 * Accepts the `OpenAI` class, the module, or a client. Safe to call more than once and before or after
 * `register()`. Returns the instrumentation (e.g. to `disable()` it).
 *
 * @example
 * import OpenAI from 'openai';
 * import { instrumentOpenAI, register } from 'weft';
 * instrumentOpenAI(OpenAI);
 * register();
 */
export function instrumentOpenAI(openai: unknown): OpenAIInstrumentation {
  const instrumentation = sharedOpenAIInstrumentation();
  instrumentation.manuallyInstrument(openai);
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
  return [sharedOpenAIInstrumentation(config)];
}
