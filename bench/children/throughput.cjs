// Pushes realistic chat spans through one pipeline (weft's, or the stock OpenTelemetry one set up by hand)
// to the loopback sink, yielding to the event loop between bursts as a busy service would, then flushes.
'use strict';

const { SpanKind } = require('@opentelemetry/api');
const { stockProvider, WEFT_PROJECT } = require('./setups.cjs');
const { SPAN_NAME, attributes } = require('./span-shape.cjs');

const job = JSON.parse(process.env.BENCH_JOB);

function pipeline() {
  if (job.pipeline === 'weft') {
    const handle = require('weft').register({ baseUrl: job.urls.origin, project: WEFT_PROJECT, instrumentations: [] });
    return { tracer: handle.tracerProvider.getTracer('bench'), flush: () => handle.forceFlush(), handle };
  }
  const provider = stockProvider(job.urls.tracesUrl);
  return { tracer: provider.getTracer('bench'), flush: () => provider.forceFlush() };
}

async function main() {
  const { tracer, flush, handle } = pipeline();
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < job.spans; i++) {
    const span = tracer.startSpan(SPAN_NAME, { kind: SpanKind.CLIENT, attributes });
    span.setAttribute('gen_ai.response.id', `chatcmpl-${i}`);
    span.end();
    if (i % job.burst === job.burst - 1) await new Promise((resolve) => setImmediate(resolve));
  }
  await flush();
  const elapsedNs = Number(process.hrtime.bigint() - t0);
  const cpu = process.cpuUsage(cpu0);
  const dropped = handle ? handle.droppedSpans : null;
  process.stdout.write(`${JSON.stringify({ elapsedNs, cpuUs: cpu.user + cpu.system, produced: job.spans, dropped })}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
