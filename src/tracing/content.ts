import type { AttributeValue } from '@opentelemetry/api';
import { reportTracingFailure } from './failures.js';
import { jsonOrText, safeStringify, scrubAndCut } from './serialize.js';
import { type ResolvedContentOptions, withinLimit } from './content-options.js';

/**
 * The `inputs` attribute: JSON text of the object of named arguments, after the privacy settings.
 * `undefined` means "record nothing".
 */
export function inputsValue(
  inputs: Record<string, unknown>,
  settings: ResolvedContentOptions,
  spanName: string,
): string | undefined {
  if (!settings.captureInput) return undefined;
  const value = settings.redactContent ? redacted(inputs, settings, spanName, 'input') : inputs;
  if (value === LEFT_OUT || value === undefined || value === null) return undefined;
  return withinLimit(settings.maxAttributeLength, (maxLength) => safeStringify(value, { maxLength }));
}

/**
 * The `output` attribute. Objects and arrays become JSON text (the trace service parses text that starts with
 * `{` or `[`); strings, finite numbers and booleans stay themselves so the call shows `hello`, not `"hello"`, and
 * so does a value whose JSON is a string: a Date shows its ISO text, `5n` shows `5`. `undefined` (and `null`)
 * record nothing.
 *
 * The trace service counts an output only when it is truthy, so the falsy scalars are recorded as text that
 * shows: `false` as the text `false`, `0` as `0`, and `''` as the two characters `""`. An empty array or object
 * is recorded as `[]` or `{}`; the service parses that back to an empty value and shows no output for it.
 */
export function outputValue(
  output: unknown,
  settings: ResolvedContentOptions,
  spanName: string,
): AttributeValue | undefined {
  if (!settings.captureOutput) return undefined;
  const value = settings.redactContent ? redacted(output, settings, spanName, 'output') : output;
  if (value === LEFT_OUT || value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value || 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return value === 0 ? '0' : value;
  const limit = settings.maxAttributeLength;
  if (typeof value === 'string') return shown(withinLimit(limit, (budget) => scrubAndCut(value, budget)));
  // Fitted as JSON, then a JSON string literal loses its quotes: it only gets shorter.
  const json = withinLimit(limit, (maxLength) => safeStringify(value, { maxLength }));
  return json === undefined ? undefined : shown(jsonOrText(json));
}

/** `''` as the two characters `""`, which the trace service shows (it drops an empty string). */
function shown(text: string | undefined): string | undefined {
  return text === '' ? '""' : text;
}

const LEFT_OUT = Symbol('left out');

function redacted(
  value: unknown,
  settings: ResolvedContentOptions,
  spanName: string,
  direction: 'input' | 'output',
): unknown {
  try {
    const replaced = settings.redactContent!(value, direction, { spanName });
    if (replaced === null) return LEFT_OUT;
    return replaced === undefined ? value : replaced;
  } catch (error) {
    // Fail closed: a value the hook could not clean is not recorded at all.
    reportTracingFailure('redact', error);
    return LEFT_OUT;
  }
}
