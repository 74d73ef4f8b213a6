import { type Tracer, type TracerProvider, trace } from '@opentelemetry/api';
import { VERSION } from '../version.js';

/** Instrumentation scope of the spans made by `op()`, `withSpan()` and `@traced()`. */
const TRACER_NAME = 'weft';

let cachedProvider: TracerProvider | undefined;
let cachedTracer: Tracer | undefined;
// Keyed on globalThis so that the ESM and CommonJS copies of weft in one process route to the same provider.
const OWN_PROVIDER_KEY = Symbol.for('weft.tracing.own-provider');
const holder = globalThis as { [OWN_PROVIDER_KEY]?: TracerProvider };

/**
 * Routes weft's own spans (ops, and the chat spans of weft's client) to a provider that is not the global one:
 * `register({ global: false })` calls it with its provider, and with `undefined` at shutdown.
 *
 * @internal
 */
export function setWeftTracerProvider(provider: TracerProvider | undefined): void {
  holder[OWN_PROVIDER_KEY] = provider;
  cachedTracer = undefined;
}

/**
 * weft's tracer: on the provider `register({ global: false })` built, else on the global one. Looked up per call
 * because `register()` and `shutdown()` may replace the provider; the lookup is one comparison when it did not.
 */
export function weftTracer(): Tracer {
  const provider = holder[OWN_PROVIDER_KEY] ?? trace.getTracerProvider();
  if (provider !== cachedProvider || cachedTracer === undefined) {
    cachedProvider = provider;
    cachedTracer = provider.getTracer(TRACER_NAME, VERSION);
  }
  return cachedTracer;
}
