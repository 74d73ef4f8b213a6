// One configuration, one process: times chat calls against the loopback server (or an in-memory fetch),
// non-streaming and streaming, either in one run that prints one JSON line, or slice by slice as the parent asks
// over IPC. CPU time covers the timed calls and the flush that exports their spans, so a configuration that
// defers work to its exporter still pays for it.
'use strict';

const v8 = require('node:v8');
const { setup } = require('./setups.cjs');
const { MESSAGES, memoryFetch } = require('./canned-chat.cjs');

const job = JSON.parse(process.env.BENCH_JOB);
const configured = setup(job.config, job.openai, job.urls);
const OpenAI = configured.openai.default ?? configured.openai;
// `memory`: the same replies from an in-process fetch, so what remains is each instrumentation's own work.
const transport = job.transport === 'memory' ? { fetch: memoryFetch } : {};
const client = new OpenAI({ baseURL: job.chatBaseURL, apiKey: 'sk-bench-not-a-secret', maxRetries: 0, ...transport });

async function plainCall() {
  const t0 = process.hrtime.bigint();
  const reply = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: MESSAGES, temperature: 0.2, max_tokens: 64 });
  const t1 = process.hrtime.bigint();
  if (!reply.choices[0]) throw new Error('empty reply');
  return { wall: Number(t1 - t0), first: 0, chunks: 0 };
}

async function streamedCall() {
  const t0 = process.hrtime.bigint();
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: MESSAGES, temperature: 0.2, max_tokens: 64, stream: true });
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

// Also under callgrind: how many full GCs V8 started by itself inside the window. Each puts its whole cost into one
// count (under Node 24, before the count bench gave V8 a large old generation, 300k to 700k instructions a call).
const watchFullGCs = () => {
  if (!job.markCounters) return () => undefined;
  const profiler = new v8.GCProfiler();
  profiler.start();
  return () => profiler.stop().statistics.filter((gc) => gc.gcType === 'MarkSweepCompact').length;
};

const yieldToLoop = job.transport === 'memory' ? () => new Promise((resolve) => setImmediate(resolve)) : async () => {};

async function warmUp(call, calls) {
  for (let i = 0; i < calls; i++) {
    await call();
    await yieldToLoop();
  }
  await configured.flush();
}

/** Times `calls` calls, then the flush that exports their spans; CPU covers both. */
async function timed(call, calls) {
  const wall = new Float64Array(calls);
  const first = new Float64Array(calls);
  let chunks = 0;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
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
  return {
    wallNs: Array.from(wall),
    firstChunkNs: Array.from(first),
    chunksPerCall: chunks / calls,
    cpuUs: cpu.user + cpu.system,
    cpuSystemUs: cpu.system,
    loopNs: Number(callsDone - t0),
    flushNs: Number(flushed - callsDone),
  };
}

// `job.modes` narrows a run to one mode: the instruction-count bench runs each mode in its own child.
const CALLS = { plain: plainCall, stream: streamedCall };
const modes = job.modes ?? ['plain', 'stream'];

/** One run: warm-up, then the timed calls of each mode; prints one JSON line. */
async function runOnce() {
  const result = {};
  for (const mode of modes) {
    await warmUp(CALLS[mode], job.warmup);
    markCounters();
    const fullGCs = watchFullGCs();
    result[mode] = await timed(CALLS[mode], job.calls);
    result[mode].fullGCs = fullGCs();
    markCounters();
  }
  await configured.shutdown();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/**
 * Served over IPC (`job.serve`): warm up every mode, say `ready`, then time one slice of calls per message
 * (`{ mode, calls }`), so that the parent can interleave slices of every configuration in small steps and the
 * machine's drift falls on all of them alike. `{ stop: true }` shuts down (flushing) and answers `{ stopped: true }`.
 */
async function serve() {
  for (const mode of modes) await warmUp(CALLS[mode], job.warmup);
  process.on('message', (message) => {
    const work = message.stop
      ? configured.shutdown().then(() => ({ stopped: true }))
      : timed(CALLS[message.mode], message.calls);
    work.then(
      (reply) => {
        process.send(reply);
        if (message.stop) process.disconnect();
      },
      (err) => {
        process.stderr.write(`${err?.stack ?? err}\n`);
        process.exit(1);
      },
    );
  });
  process.send({ ready: true });
}

(job.serve ? serve() : runOnce()).catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
