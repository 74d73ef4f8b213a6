import { type RegisterOptions, register, type WeftHandle } from 'weft';
import type { DecodedSpan } from '../../src/otlp/index.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

/** One registration per test file, exporting to a loopback OTLP receiver. */
export interface TracingHarness {
  readonly receiver: OtlpReceiver;
  readonly handle: WeftHandle;
  /** Runs `work`, flushes, and returns the spans exported since it started (tests in a file run one by one). */
  capture(work: () => unknown): Promise<DecodedSpan[]>;
  close(): Promise<void>;
}

export async function startHarness(options: Pick<RegisterOptions, 'spanProcessors' | 'batch'> = {}): Promise<TracingHarness> {
  const receiver = await startOtlpReceiver();
  const handle = register({
    baseUrl: receiver.url,
    project: 'test/tracing',
    instrumentations: [],
    flushOnExit: false,
    ...options,
  });
  return {
    receiver,
    handle,
    async capture(work) {
      const before = receiver.spans().length;
      await work();
      await handle.forceFlush();
      return receiver.spans().slice(before);
    },
    async close() {
      await handle.shutdown();
      await receiver.close();
    },
  };
}

/** The one span named `name`. */
export function named(spans: DecodedSpan[], name: string): DecodedSpan {
  const found = spans.filter((s) => s.name === name);
  if (found.length !== 1) throw new Error(`expected one span "${name}", found ${found.length}: ${spans.map((s) => s.name)}`);
  return found[0]!;
}

/** The spans whose parent is `parent`. */
export function childrenOf(spans: DecodedSpan[], parent: DecodedSpan): DecodedSpan[] {
  return spans.filter((s) => s.parentSpanId === parent.spanId);
}

/** The `inputs` attribute, parsed. */
export function inputsOf(span: DecodedSpan): unknown {
  const raw = span.attributes.inputs;
  if (typeof raw !== 'string') throw new Error(`span "${span.name}" has no inputs attribute`);
  return JSON.parse(raw);
}

/** The `output` attribute, parsed when it is JSON text of an object or array (as the trace service does). */
export function outputOf(span: DecodedSpan): unknown {
  const raw = span.attributes.output;
  return typeof raw === 'string' && /^[[{]/.test(raw) ? JSON.parse(raw) : raw;
}
