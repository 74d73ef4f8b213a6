/**
 * weft: OpenTelemetry tracing for LLM applications, and a typed client for the trace, training and
 * inference services.
 *
 * @packageDocumentation
 */
export { WeftConfigError, DEFAULT_DEV_URL, DEFAULT_DEV_PORT, type ConnectionOptions, type ProjectRef } from './config/index.js';
export * from './register/index.js';
export * from './instrumentation/index.js';
export * from './tracing/index.js';
export * from './client/index.js';
