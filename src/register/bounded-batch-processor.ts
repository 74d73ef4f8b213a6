import type { Context } from '@opentelemetry/api';
import { TraceFlags } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { reportOnce } from '../diagnostics.js';
import type { ExportStats } from './export-stats.js';

/**
 * Puts a counted bound in front of OTel's BatchSpanProcessor. The batch processor drops spans past its own
 * queue limit too, but only logs how many; here every span that enters the pipeline is counted, so the handle
 * can say exactly how many were dropped while the backend was slow or down. Memory stays bounded: at most
 * `maxQueueSize` spans wait here, and the exporter keeps at most its own retry bound.
 */
export class BoundedBatchProcessor implements SpanProcessor {
  private closed = false;

  constructor(
    private readonly batch: SpanProcessor,
    private readonly stats: ExportStats,
    private readonly maxQueueSize: number,
  ) {}

  onStart(span: Span, parentContext: Context): void {
    this.batch.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    if (this.closed || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    this.stats.spansEnded += 1;
    if (this.stats.spansQueued >= this.maxQueueSize) {
      this.stats.spansDropped += 1;
      reportOnce(
        'queue-full',
        `the export queue is full (${this.maxQueueSize} spans): spans end faster than they can be sent (a burst, or a trace service that is slow or unreachable), so new spans are being dropped and counted. A larger \`batch.maxQueueSize\` (env OTEL_BSP_MAX_QUEUE_SIZE) takes bigger bursts.`,
      );
      return;
    }
    this.stats.spansQueued += 1;
    this.batch.onEnd(span);
  }

  /** Counts the spans still queued as dropped: the process is ending, and the batch processor cannot send them. */
  dropQueued(): void {
    this.stats.spansDropped += this.stats.spansQueued;
    this.stats.spansQueued = 0;
  }

  /**
   * The spans waiting in OTel's batch processor, for the last send as the process ends. They are read from its
   * private queue (`_finishedSpans` of the SDK's BatchSpanProcessorBase), as nothing public gives them: when that
   * is not an array of spans (another version of the SDK), none, and they are counted as dropped as they would be
   * without a last send.
   */
  queuedSpans(): ReadableSpan[] {
    const queue = (this.batch as { _finishedSpans?: unknown })._finishedSpans;
    if (!Array.isArray(queue)) return [];
    const isSpan = (span: unknown) => typeof (span as ReadableSpan | null)?.spanContext === 'function';
    return queue.every(isSpan) ? [...(queue as ReadableSpan[])] : [];
  }

  /** Takes `spans` out of the batch processor's queue: the last send sent them. */
  forgetQueued(spans: readonly ReadableSpan[]): void {
    const queue = (this.batch as { _finishedSpans?: unknown })._finishedSpans;
    if (!Array.isArray(queue) || spans.length === 0) return;
    const sent = new Set(spans);
    const left = queue.filter((span) => !sent.has(span as ReadableSpan));
    queue.length = 0;
    queue.push(...left);
  }

  forceFlush(): Promise<void> {
    return this.batch.forceFlush();
  }

  shutdown(): Promise<void> {
    this.closed = true;
    return this.batch.shutdown();
  }
}
