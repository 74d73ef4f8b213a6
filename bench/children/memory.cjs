// Makes many traced chat calls while the trace backend refuses connections (or, as a control, accepts everything),
// and samples memory on the way: a bounded pipeline keeps trying the backend, drops spans past its bound (and
// counts them) instead of growing. The chat calls go through the real `openai` client with an in-process fetch,
// so the run measures the span pipeline rather than the network.
'use strict';

const diagnostics = require('node:diagnostics_channel');
const { WEFT_PROJECT } = require('./setups.cjs');
const { memoryFetch } = require('./canned-chat.cjs');

const job = JSON.parse(process.env.BENCH_JOB);

// Every HTTP request to the trace endpoint, counted as it starts, whether or not it ever connects: the proof that
// the exporter did try the dead backend, which weft's own counters only show for requests that failed.
let exportRequests = 0;
diagnostics.subscribe('http.client.request.start', ({ request }) => {
  if (request.path.endsWith('/otel/v1/traces')) exportRequests++;
});

const MB = 2 ** 20;

/** The handle's counters, and what they leave in memory: spans queued, kept for a retry or in an export request. */
function exportCounters(handle) {
  const s = handle.stats;
  return { ...s, spansHeld: s.spansEnded - s.spansExported - s.spansDropped, exportRequests };
}

/** Memory after a full GC, so that garbage waiting to be collected does not pass for growth; and weft's counters. */
function sample(calls, startedAt, handle) {
  global.gc();
  const m = process.memoryUsage();
  const seconds = (performance.now() - startedAt) / 1000;
  return { calls, seconds, rssMB: m.rss / MB, heapUsedMB: m.heapUsed / MB, stats: handle ? exportCounters(handle) : null };
}

function makeClient() {
  const openai = require('openai');
  const OpenAI = openai.default ?? openai;
  return new OpenAI({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-bench-not-a-secret', fetch: memoryFetch, maxRetries: 0 });
}

async function main() {
  const handle = job.config === 'none' ? undefined : require('weft').register({ baseUrl: job.backend, project: WEFT_PROJECT, batch: job.batch });
  const client = makeClient();
  const messages = [{ role: 'user', content: 'A question of about a hundred characters, asked many times over to see whether memory grows.' }];
  const startedAt = performance.now();
  const samples = [sample(0, startedAt, handle)];
  const checkpoints = new Set(job.checkpoints);
  let done = 0;
  while (done < job.calls) {
    const batch = Math.min(job.parallel, job.calls - done);
    await Promise.all(Array.from({ length: batch }, () => client.chat.completions.create({ model: 'gpt-4o-mini', messages })));
    done += batch;
    // An in-memory call never waits for I/O: without a turn of the event loop between batches, as a service has
    // between requests, the exporter's timers and sockets would never run, and the run would show only the queue
    // filling up, not what weft does with a backend that refuses connections.
    await new Promise((resolve) => setImmediate(resolve));
    if (checkpoints.has(done)) samples.push(sample(done, startedAt, handle));
  }
  const peakRssMB = (process.resourceUsage().maxRSS * 1024) / MB;
  process.stdout.write(`${JSON.stringify({ samples, peakRssMB })}\n`);
  // Not a shutdown: the counters are read as they stand while the app is still running, and a final flush to the
  // dead backend would only add one more wait.
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
