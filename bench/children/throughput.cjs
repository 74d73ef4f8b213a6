// Pushes realistic chat spans through one pipeline (weft's, or the stock OpenTelemetry one set up by hand) to the
// loopback sink, as fast as the pipeline takes them without dropping any, then flushes. Throughput is then what
// the pipeline can carry, not how much it threw away: a producer that outran the exporter would fill the queue,
// and the pipeline that dropped more would finish sooner and look faster.
'use strict';

const { SpanKind } = require('@opentelemetry/api');
const { WEFT_PROJECT } = require('./setups.cjs');
const { SPAN_NAME, attributes } = require('./span-shape.cjs');

const job = JSON.parse(process.env.BENCH_JOB);

// Each pipeline gives a tracer, a flush, `queued(ended)`: how many of the spans ended so far wait in its queue, and
// `dropped()`: the spans it counted as dropped (null: the stock pipeline only logs them).

/** weft's register(); its handle says how many spans wait in its queue. */
function weftPipeline() {
  const batch = { maxQueueSize: job.queue };
  const handle = require('weft').register({ baseUrl: job.urls.origin, project: WEFT_PROJECT, instrumentations: [], batch });
  return {
    tracer: handle.tracerProvider.getTracer('bench'),
    flush: () => handle.forceFlush(),
    queued: (_ended) => handle.stats.spansQueued,
    dropped: () => handle.droppedSpans,
  };
}

/**
 * The stock pipeline as the peers' READMEs set it up (what setups.cjs's stockProvider builds), with the same queue
 * size as weft's, and one counter around its exporter: the batch processor hands it each batch as it leaves the
 * queue, so spans ended minus spans handed over is the queue, as weft's handle counts it. The counter costs one
 * addition per batch; the stock processor's own count is private.
 */
function stockPipeline() {
  const { context, propagation, trace } = require('@opentelemetry/api');
  const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } = require('@opentelemetry/core');
  const exporter = new OTLPTraceExporter({ url: job.urls.tracesUrl });
  let handedOver = 0;
  const export_ = exporter.export.bind(exporter);
  exporter.export = (spans, done) => {
    handedOver += spans.length;
    export_(spans, done);
  };
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { maxQueueSize: job.queue })] });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return { tracer: provider.getTracer('bench'), flush: () => provider.forceFlush(), queued: (ended) => ended - handedOver, dropped: () => null };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function makeSpan(tracer, i) {
  const span = tracer.startSpan(SPAN_NAME, { kind: SpanKind.CLIENT, attributes });
  span.setAttribute('gen_ai.response.id', `chatcmpl-${i}`);
  span.end();
}

/**
 * Makes the spans in bursts, a turn of the event loop after each (the exporter's timers and sockets run there), and
 * before a burst that would not fit in the queue, waits until the exporter has taken a batch. The wait polls every
 * millisecond rather than every turn, so that a producer with nothing to do does not spin and bill its CPU to the
 * pipeline; a batch takes far longer than that to send.
 */
async function produce(pipe) {
  let waitedMs = 0;
  for (let made = 0; made < job.spans; ) {
    const burst = Math.min(job.burst, job.spans - made);
    const waitFrom = performance.now();
    while (pipe.queued(made) + burst > job.queue) await sleep(1);
    waitedMs += performance.now() - waitFrom;
    for (let i = 0; i < burst; i++) makeSpan(pipe.tracer, made++);
    await nextTurn();
  }
  return waitedMs;
}

async function main() {
  const pipe = job.pipeline === 'weft' ? weftPipeline() : stockPipeline();
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const waitedMs = await produce(pipe);
  await pipe.flush();
  const elapsedNs = Number(process.hrtime.bigint() - t0);
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(`${JSON.stringify({ elapsedNs, cpuUs: cpu.user + cpu.system, produced: job.spans, dropped: pipe.dropped(), waitedMs })}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
