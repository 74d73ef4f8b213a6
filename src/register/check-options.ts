import { ENV, describeValue, kindOf, refuseUnknownOptions, WeftConfigError } from '../config/index.js';
import { isObjectRecord } from '../is-object-record.js';
import { CHAT_TRACING_OPTIONS, CLIENT_ONLY_OPTION_NAMES, REGISTER_OPTION_NAMES, type RegisterOptions, SPAN_LIMIT_NAMES } from './options.js';
import { resolveFlushOnExit } from './pipeline-flushing.js';
import { ROUTING_ATTRIBUTES } from './resource.js';

function refuse(option: string, expected: string, value: unknown, envVar?: string): never {
  const where = envVar ? `option \`${option}\` (env ${envVar})` : `option \`${option}\``;
  throw new WeftConfigError(option, envVar, `weft: ${where} must be ${expected}, got ${kindOf(value)}.`);
}

const isAttributeValue = (value: unknown): boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

const LOGGER_METHODS = ['error', 'warn', 'info', 'debug', 'verbose'] as const;
/** What OTel's registerInstrumentations() calls on each instrumentation. */
const INSTRUMENTATION_METHODS = ['enable', 'disable', 'setTracerProvider'] as const;

/** Each entry an instrumentation, or an array of them: OTel's registerInstrumentations() flattens nested arrays. */
function checkInstrumentations(list: unknown[], path: string): void {
  for (const [i, entry] of list.entries()) {
    if (Array.isArray(entry)) {
      checkInstrumentations(entry, `${path}[${i}]`);
      continue;
    }
    const methods = entry as Record<string, unknown> | null;
    if (typeof methods !== 'object' || methods === null || INSTRUMENTATION_METHODS.some((m) => typeof methods[m] !== 'function')) {
      refuse(`${path}[${i}]`, `an instrumentation (with ${INSTRUMENTATION_METHODS.join(', ')}), such as weftInstrumentations()'s`, entry);
    }
  }
}

// The routing attributes are set from the `project` option: two projects would disagree.
function refuseRoutingAttribute(name: string): void {
  if (!ROUTING_ATTRIBUTES.includes(name)) return;
  throw new WeftConfigError(
    `resourceAttributes.${name}`,
    undefined,
    `weft: option \`resourceAttributes\` must not set "${name}": it routes spans, and weft sets it from the \`project\` option (env ${ENV.project}), as it does the \`project_id\` header. Set the project there.`,
  );
}

/** OTel's span limits: each a whole number of 0 or more (Infinity for none), as the SDK reads them. */
function checkSpanLimits(limits: unknown): void {
  if (!isObjectRecord(limits)) refuse('spanLimits', `an object of span limits (${SPAN_LIMIT_NAMES.join(', ')})`, limits);
  refuseUnknownOptions(limits, SPAN_LIMIT_NAMES, '', 'spanLimits.');
  for (const [name, value] of Object.entries(limits)) {
    if (value === undefined || value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && (value as number) >= 0)) continue;
    throw new WeftConfigError(`spanLimits.${name}`, undefined, `weft: option \`spanLimits.${name}\` must be a whole number, 0 or more, got ${describeValue(value)}.`);
  }
}

/**
 * Checks the types of the options `register()` reads itself, for apps without TypeScript: a wrong type would
 * otherwise fail later with a bare `TypeError` from deep inside, or be ignored without a word. The connection,
 * `batch`, `headers` and `compression` are checked where they are read. No value is repeated in a message.
 *
 * @throws {WeftConfigError} naming the option and what was expected.
 */
export function checkRegisterOptions(options: unknown): RegisterOptions {
  if (options === undefined) return {};
  if (!isObjectRecord(options)) refuse('options', 'an object', options);
  refuseUnknownOptions(options, REGISTER_OPTION_NAMES, 'register()', '', CLIENT_ONLY_OPTION_NAMES);
  const { serviceName, resourceAttributes, instrumentations, spanProcessors, sampler, spanLimits, global, flushOnExit, logger } =
    options as Record<string, unknown>;
  if (serviceName !== undefined && typeof serviceName !== 'string') refuse('serviceName', 'a string', serviceName, 'OTEL_SERVICE_NAME');
  if (resourceAttributes !== undefined) {
    if (!isObjectRecord(resourceAttributes)) refuse('resourceAttributes', 'an object of attribute names to values', resourceAttributes);
    for (const [name, value] of Object.entries(resourceAttributes)) {
      // An array of values is an attribute value too, as OTel has it; `undefined` is a plain-JS app's unset value.
      const ok = value === undefined || isAttributeValue(value) || (Array.isArray(value) && value.every(isAttributeValue));
      if (!ok) refuse(`resourceAttributes.${name}`, 'a string, number or boolean (or an array of them)', value);
      if (value !== undefined) refuseRoutingAttribute(name);
    }
  }
  if (instrumentations !== undefined) {
    if (!Array.isArray(instrumentations)) refuse('instrumentations', 'an array of instrumentations (`[]` for none)', instrumentations);
    checkInstrumentations(instrumentations, 'instrumentations');
  }
  const chatOption = CHAT_TRACING_OPTIONS.find((name) => (options as Record<string, unknown>)[name] !== undefined);
  if (chatOption !== undefined && instrumentations !== undefined) {
    // They configure weft's default instrumentations, which a list of the app's own replaces: applied to nothing,
    // they would leave content recorded that the app asked to leave out.
    throw new WeftConfigError(
      chatOption,
      chatOption === 'captureContent' ? 'WEFT_CAPTURE_CONTENT' : undefined,
      `weft: \`${chatOption}\` configures weft's default instrumentations, and \`instrumentations\` replaces them: give it to weftInstrumentations() in your list, register({ instrumentations: [...weftInstrumentations({ ${chatOption} }), ...] }).`,
    );
  }
  if (spanProcessors !== undefined) {
    if (!Array.isArray(spanProcessors)) refuse('spanProcessors', 'an array of span processors', spanProcessors);
    for (const [i, processor] of spanProcessors.entries()) {
      if (typeof (processor as { onEnd?: unknown } | null)?.onEnd !== 'function') {
        refuse(`spanProcessors[${i}]`, 'a span processor (with onStart, onEnd, forceFlush and shutdown)', processor);
      }
    }
  }
  if (sampler !== undefined && typeof (sampler as { shouldSample?: unknown } | null)?.shouldSample !== 'function') {
    refuse('sampler', 'a Sampler (with shouldSample), such as new TraceIdRatioBasedSampler(0.1)', sampler);
  }
  if (spanLimits !== undefined) checkSpanLimits(spanLimits);
  if (global !== undefined && typeof global !== 'boolean') refuse('global', 'true or false', global);
  resolveFlushOnExit(flushOnExit);
  if (logger !== undefined && logger !== false) {
    const methods = logger as Record<string, unknown> | null;
    if (typeof methods !== 'object' || methods === null || LOGGER_METHODS.some((m) => typeof methods[m] !== 'function')) {
      refuse('logger', `false or a DiagLogger (with ${LOGGER_METHODS.join(', ')})`, logger);
    }
  }
  return options as RegisterOptions;
}
