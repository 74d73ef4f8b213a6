import { type Tracer, type TracerProvider, trace } from '@opentelemetry/api';
import { VERSION } from '../version.js';

/** Instrumentation scope of the spans made by `op()`, `withSpan()` and `@traced()`. */
export const TRACER_NAME = 'weft';

let cachedProvider: TracerProvider | undefined;
let cachedTracer: Tracer | undefined;

/**
 * weft's tracer on the current global provider. Looked up per call because `register()` and `shutdown()` may
 * replace the global provider; the lookup is one comparison when it did not change.
 */
export function weftTracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (provider !== cachedProvider || cachedTracer === undefined) {
    cachedProvider = provider;
    cachedTracer = provider.getTracer(TRACER_NAME, VERSION);
  }
  return cachedTracer;
}
