/** The flushes' time limit (`exitFlushTimeoutMillis`), and what weft says when a flush fails or runs out of it. */
import { kindOf, WeftConfigError } from '../config/index.js';
import { reportOnce } from '../diagnostics.js';
import type { ExportPipeline } from './span-processor.js';

/** The default of `exitFlushTimeoutMillis`: the longest wait of a flush, in ms. */
const DEFAULT_FLUSH_TIMEOUT_MILLIS = 3000;

/** The `exitFlushTimeoutMillis` option, checked; {@link DEFAULT_FLUSH_TIMEOUT_MILLIS} when not given. */
export function resolveFlushTimeout(value: unknown): number {
  if (value === undefined) return DEFAULT_FLUSH_TIMEOUT_MILLIS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new WeftConfigError(
      'exitFlushTimeoutMillis',
      undefined,
      `weft: option \`exitFlushTimeoutMillis\` must be a positive integer, got ${typeof value === 'number' ? value : kindOf(value)}.`,
    );
  }
  return value;
}

/** A reporter that says, once per kind, that a flush or shutdown (`what`) failed, with the error's message. */
export function failureReporter(what: string): (error: unknown) => void {
  return (error) => reportOnce(`${what}-failed`, `${what} failed: ${(error as Error)?.message ?? String(error)}`);
}

/** How many of the pipeline's spans are neither exported nor dropped yet. */
export function unsentSpans(pipeline: ExportPipeline): number {
  const { stats } = pipeline;
  return stats.spansEnded - stats.spansExported - stats.spansDropped;
}

/** Says that a flush did not finish in time (its connections released): the spans not sent wait for later. */
export function reportFlushGivenUp(pipeline: ExportPipeline, flushTimeout: number): void {
  reportOnce(
    `flush-timeout ${pipeline.endpoint}`,
    `gave up waiting for ${pipeline.endpoint} after ${flushTimeout} ms; ${unsentSpans(pipeline)} span(s) not sent yet are kept for the next attempt.${pipeline.hint}`,
  );
}

/** After a shutdown that did not finish in time: every span not yet exported is dropped, the connections closed. */
export function gaveUpShuttingDown(pipeline: ExportPipeline, flushTimeout: number): void {
  const dropped = pipeline.stats.spansDropped;
  pipeline.abandon();
  reportOnce(
    `shutdown-timeout ${pipeline.endpoint}`,
    `gave up sending spans to ${pipeline.endpoint} at shutdown after ${flushTimeout} ms; ${pipeline.stats.spansDropped - dropped} span(s) were not sent and are dropped.${pipeline.hint}`,
  );
}
