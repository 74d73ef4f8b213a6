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
        `the export queue is full (${this.maxQueueSize} spans): the trace service is slow or unreachable, so new spans are being dropped and counted.`,
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

  forceFlush(): Promise<void> {
    return this.batch.forceFlush();
  }

  shutdown(): Promise<void> {
    this.closed = true;
    return this.batch.shutdown();
  }
}
