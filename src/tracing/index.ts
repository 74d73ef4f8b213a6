export { op, isOp, type OpOptions, type SpanOptions, type AnyFunction } from './op.js';
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
  type ContentOptions,
  type RedactHook,
  type RedactInfo,
} from './settings.js';
export { ATTR as WEFT_SPAN_ATTRIBUTES } from './attributes.js';
