import type { InstrumentationConfig } from '@opentelemetry/instrumentation';
import type { ChatTracingConfig } from '../chat/index.js';

/**
 * Options of {@link OpenAIInstrumentation}: OpenTelemetry's instrumentation options (`enabled`) plus how chat
 * calls are recorded (content capture, redaction, truncation, stream usage).
 *
 * @example
 * new OpenAIInstrumentation({ captureContent: 'output', maxMessageLength: 8192 });
 */
export interface OpenAIInstrumentationConfig extends InstrumentationConfig, ChatTracingConfig {}
