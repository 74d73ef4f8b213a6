import type { Span } from '@opentelemetry/api';
import type { ResolvedContentOptions } from './content-options.js';

/** What weft knows about one of its own spans while it runs. */
export interface SpanState {
  readonly name: string;
  readonly settings: ResolvedContentOptions;
  /** Set when the code inside called `setOutput()`, which then wins over the return value. */
  outputSet: boolean;
}

// Weak, so that a span that never ends (an abandoned generator) does not keep its state alive. Keyed on
// globalThis so that `currentSpan()` of the CommonJS copy of weft sees the spans of the ESM copy, and back.
const STATES_KEY = Symbol.for('weft.tracing.span-states');
const holder = globalThis as { [STATES_KEY]?: WeakMap<Span, SpanState> };
holder[STATES_KEY] ??= new WeakMap();
const states: WeakMap<Span, SpanState> = holder[STATES_KEY];

/** Remembers the state of a span weft started. */
export function trackSpan(span: Span, state: SpanState): void {
  states.set(span, state);
}

/** The state of a span weft started, or `undefined` for other spans (e.g. chat spans, the app's own). */
export function spanState(span: Span): SpanState | undefined {
  return states.get(span);
}
