// weft depends on @opentelemetry/api 1.x; a process's 2.x would keep its own slot, which weft's diag does not read.
const OTEL_API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/**
 * Whether anyone (weft's `register()`, the app, another OTel setup such as NodeSDK's) has given OTel's `diag` a
 * logger: without one, whatever is written to `diag` goes nowhere.
 *
 * `@opentelemetry/api` has no getter for this. It keeps its globals, the diag logger among them, on `globalThis`
 * under `Symbol.for('opentelemetry.js.api.<major>')`: every copy of the API loaded in a process (an app often has
 * several) reads and writes that one slot, so its key and shape are the API's contract between copies, fixed for
 * a major version, not one copy's private state. `diag.setLogger()` fills its `diag` entry, `diag.disable()`
 * deletes it.
 */
export function otelDiagHasLogger(): boolean {
  const api = (globalThis as Record<symbol, { diag?: unknown } | undefined>)[OTEL_API_GLOBAL];
  return api?.diag !== undefined;
}
