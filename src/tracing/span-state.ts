import type { Span } from '@opentelemetry/api';
import type { ResolvedContentOptions } from './settings.js';

/** What weft knows about one of its own spans while it runs. */
export interface SpanState {
  readonly name: string;
  readonly settings: ResolvedContentOptions;
  /** Set when the code inside called `setOutput()`, which then wins over the return value. */
  outputSet: boolean;
}

// Weak, so that a span that never ends (an abandoned generator) does not keep its state alive.
const states = new WeakMap<Span, SpanState>();

/** Remembers the state of a span weft started. */
export function trackSpan(span: Span, state: SpanState): void {
  states.set(span, state);
}

/** The state of a span weft started, or `undefined` for other spans (e.g. chat spans, the app's own). */
export function spanState(span: Span): SpanState | undefined {
  return states.get(span);
}
