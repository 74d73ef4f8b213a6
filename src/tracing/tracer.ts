import { type Tracer, type TracerProvider, trace } from '@opentelemetry/api';
import { VERSION } from '../version.js';

/** Instrumentation scope of the spans made by `op()`, `withSpan()` and `@traced()`. */
export const TRACER_NAME = 'weft';

let cachedProvider: TracerProvider | undefined;
let cachedTracer: Tracer | undefined;
let ownProvider: TracerProvider | undefined;

/**
 * Routes weft's own spans (ops, and the chat spans of weft's client) to a provider that is not the global one:
 * `register({ global: false })` calls it with its provider, and with `undefined` at shutdown.
 *
 * @internal
 */
export function setWeftTracerProvider(provider: TracerProvider | undefined): void {
  ownProvider = provider;
  cachedTracer = undefined;
}

/**
 * weft's tracer: on the provider `register({ global: false })` built, else on the global one. Looked up per call
 * because `register()` and `shutdown()` may replace the provider; the lookup is one comparison when it did not.
 */
export function weftTracer(): Tracer {
  const provider = ownProvider ?? trace.getTracerProvider();
  if (provider !== cachedProvider || cachedTracer === undefined) {
    cachedProvider = provider;
    cachedTracer = provider.getTracer(TRACER_NAME, VERSION);
  }
  return cachedTracer;
}
