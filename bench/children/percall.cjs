// One configuration, one process: times chat calls against the loopback server, non-streaming then
// streaming, and prints one JSON line. CPU time covers the timed calls and the flush that exports their
// spans, so a configuration that defers work to its exporter still pays for it.
'use strict';

const { setup } = require('./setups.cjs');
const { memoryFetch } = require('./canned-chat.cjs');

const job = JSON.parse(process.env.BENCH_JOB);
const configured = setup(job.config, job.openai, job.urls);
const OpenAI = configured.openai.default ?? configured.openai;
// `memory`: the same replies from an in-process fetch, so what remains is each instrumentation's own work.
const transport = job.transport === 'memory' ? { fetch: memoryFetch } : {};
const client = new OpenAI({ baseURL: job.chatBaseURL, apiKey: 'sk-bench-not-a-secret', maxRetries: 0, ...transport });

const messages = [
  { role: 'system', content: 'You are a terse assistant that answers benchmark questions in one sentence.' },
  { role: 'user', content: 'Describe, in one sentence, what a quick brown fox does to a lazy dog.' },
];

async function plainCall() {
  const t0 = process.hrtime.bigint();
  const reply = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, temperature: 0.2, max_tokens: 64 });
  const t1 = process.hrtime.bigint();
  if (!reply.choices[0]) throw new Error('empty reply');
  return { wall: Number(t1 - t0), first: 0, chunks: 0 };
}

async function streamedCall() {
  const t0 = process.hrtime.bigint();
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, temperature: 0.2, max_tokens: 64, stream: true });
  let first = 0n;
  let chunks = 0;
  for await (const _chunk of stream) {
    if (chunks === 0) first = process.hrtime.bigint();
    chunks++;
  }
  const t1 = process.hrtime.bigint();
  return { wall: Number(t1 - t0), first: Number(first - t0), chunks };
}

// An in-memory call never waits for I/O, so back to back they would starve the event loop and every exporter
// would drop spans it had no turn to send. One turn of the loop after each call, as a service has between
// requests, costs every configuration the same.
// Under callgrind (`--dump-before=getpriority`), a call into libc's getpriority(), which nothing else in the
// process makes, dumps the instruction counters: once after the warm-up, once after the timed calls' flush.
// A full GC first (the child runs with --expose-gc), so that the window pays for collecting exactly the
// garbage its own calls made, not for a major GC that happens to fall inside it.
const markCounters = job.markCounters
  ? () => {
      global.gc();
      require('node:os').getPriority();
    }
  : () => {};

const yieldToLoop = job.transport === 'memory' ? () => new Promise((resolve) => setImmediate(resolve)) : async () => {};

async function measure(call) {
  for (let i = 0; i < job.warmup; i++) {
    await call();
    await yieldToLoop();
  }
  await configured.flush();
  markCounters();
  const wall = new Float64Array(job.calls);
  const first = new Float64Array(job.calls);
  let chunks = 0;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < job.calls; i++) {
    const r = await call();
    await yieldToLoop();
    wall[i] = r.wall;
    first[i] = r.first;
    chunks += r.chunks;
  }
  const callsDone = process.hrtime.bigint();
  await configured.flush();
  const flushed = process.hrtime.bigint();
  const cpu = process.cpuUsage(cpu0);
  markCounters();
  return {
    wallNs: Array.from(wall),
    firstChunkNs: Array.from(first),
    chunksPerCall: chunks / job.calls,
    cpuUs: cpu.user + cpu.system,
    loopNs: Number(callsDone - t0),
    flushNs: Number(flushed - callsDone),
  };
}

// `job.modes` narrows a run to one mode: the instruction-count bench runs each mode in its own child.
const CALLS = { plain: plainCall, stream: streamedCall };

async function main() {
  const report = {};
  for (const mode of job.modes ?? ['plain', 'stream']) report[mode] = await measure(CALLS[mode]);
  await configured.shutdown();
  process.stdout.write(`${JSON.stringify({ ...report, dropped: configured.handle ? configured.handle.droppedSpans : null })}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
