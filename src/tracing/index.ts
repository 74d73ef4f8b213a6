/**
 * Manual tracing of the app's own code: `op()` for functions, `withSpan()` for blocks, `@traced()` for methods,
 * `currentSpan()` to annotate from inside, `withContext()`/`withThread()` for threads, users and sessions, and
 * `safeStringify()`, the never-throwing JSON writer behind recorded inputs and outputs.
 */
export { op, isOp, type OpOptions, type TraceOptions, type AnyFunction } from './op.js';
export { withSpan, type WithSpanOptions } from './with-span.js';
export { traced, type TracedOptions } from './decorator.js';
export { currentSpan, type SpanHandle } from './span-handle.js';
export { withContext, withThread, getWeftContext, type WeftContext } from './context.js';
export { WeftContextSpanProcessor, type WeftContextSpanProcessorOptions } from './context-span-processor.js';
export {
  safeStringify,
  type SerializeOptions,
  DEFAULT_MAX_JSON_LENGTH,
  DEFAULT_MAX_DEPTH,
} from './serialize.js';
export {
  configureTracing,
  restoreTracing,
  type ContentOptions,
  type ResolvedContentOptions,
  type ValueRedactor,
} from './content-options.js';
export { ATTR as WEFT_SPAN_ATTRIBUTES } from './attributes.js';
