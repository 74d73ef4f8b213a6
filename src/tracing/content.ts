import type { AttributeValue } from '@opentelemetry/api';
import { reportTracingFailure } from './failures.js';
import { safeStringify } from './serialize.js';
import type { ResolvedContentOptions } from './settings.js';

/**
 * The `inputs` attribute: JSON text of the object of named arguments, after the privacy settings.
 * `undefined` means "record nothing".
 */
export function inputsValue(
  inputs: Record<string, unknown>,
  settings: ResolvedContentOptions,
  spanName: string,
): string | undefined {
  if (!settings.captureContent) return undefined;
  const value = settings.redact ? redacted(inputs, settings, spanName, 'inputs') : inputs;
  if (value === REDACT_FAILED || value === undefined || value === null) return undefined;
  return safeStringify(value, { maxLength: settings.maxValueLength });
}

/**
 * The `output` attribute. Objects and arrays become JSON text (the trace service parses text that starts with
 * `{` or `[`); strings, finite numbers and booleans stay themselves so the call shows `hello`, not `"hello"`.
 * `undefined` (and `null`) record nothing.
 */
export function outputValue(
  output: unknown,
  settings: ResolvedContentOptions,
  spanName: string,
): AttributeValue | undefined {
  if (!settings.captureContent) return undefined;
  const value = settings.redact ? redacted(output, settings, spanName, 'output') : output;
  if (value === REDACT_FAILED || value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    if (value.length <= settings.maxValueLength) return value;
    return JSON.parse(safeStringify(value, { maxLength: settings.maxValueLength })) as string;
  }
  return safeStringify(value, { maxLength: settings.maxValueLength });
}

const REDACT_FAILED = Symbol('redact failed');

function redacted(
  value: unknown,
  settings: ResolvedContentOptions,
  spanName: string,
  field: 'inputs' | 'output',
): unknown {
  try {
    return settings.redact!(value, { field, spanName });
  } catch (error) {
    // Fail closed: a value the hook could not clean is not recorded at all.
    reportTracingFailure('redact', error);
    return REDACT_FAILED;
  }
}
