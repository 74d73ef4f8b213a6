// One configuration, one process: times chat calls to the loopback chat server, slice by slice as the parent asks
// over IPC, while weft exports to a trace backend that misbehaves in one way (or, uninstrumented, exports nothing).
// What a slice measures is what the app feels: each call's wall time and how late the event loop ran, not the
// export itself, which goes on in the background as it would in a service. No flush inside a slice: a flush waits
// on the backend by design, and an app does not flush between its calls.
'use strict';

const { monitorEventLoopDelay } = require('node:perf_hooks');
const { WEFT_PROJECT } = require('./setups.cjs');
const { MESSAGES } = require('./canned-chat.cjs');

const job = JSON.parse(process.env.BENCH_JOB);

// weft's defaults, as an app gets them: its batch settings and flush timeout decide how often the backend is tried
// during the calls and how long the pipeline holds what it could not send.
const handle = job.config === 'weft' ? require('weft').register({ baseUrl: job.backend, project: WEFT_PROJECT, logger: false }) : undefined;
const openai = require('openai');
const OpenAI = openai.default ?? openai;
const client = new OpenAI({ baseURL: job.chatBaseURL, apiKey: 'sk-bench-not-a-secret', maxRetries: 0 });

async function plainCall() {
  const reply = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: MESSAGES, temperature: 0.2, max_tokens: 64 });
  if (!reply.choices[0]) throw new Error('empty reply');
}

async function streamedCall() {
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: MESSAGES, max_tokens: 64, stream: true });
  let chunks = 0;
  for await (const _chunk of stream) chunks++;
  if (chunks === 0) throw new Error('empty stream');
}

const CALLS = { plain: plainCall, stream: streamedCall };

/** The handle's counters as they stand: what was exported, dropped, and is still held. */
function counters() {
  if (!handle) return null;
  const { spansEnded, spansExported, spansDropped, exportFailures } = handle.stats;
  return { spansEnded, spansExported, spansDropped, exportFailures };
}

/** Times `calls` calls of `mode`: each call's wall time, the event loop's delays over them, and the CPU they took. */
async function slice(mode, calls) {
  const call = CALLS[mode];
  const wallNs = new Float64Array(calls);
  // 1 ms resolution is the finest the histogram samples at; a stall worth the name is longer than that.
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    const t0 = process.hrtime.bigint();
    await call();
    wallNs[i] = Number(process.hrtime.bigint() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  loop.disable();
  return {
    wallNs: Array.from(wallNs),
    cpuUs: cpu.user + cpu.system,
    // The histogram reports ns; the loop's delay past its 1 ms timer, the timer's own period taken off by Node.
    loopDelayMaxMs: loop.max / 1e6,
    loopDelayP99Ms: loop.percentile(99) / 1e6,
    stats: counters(),
  };
}

/** Spans ended and neither exported nor dropped yet. */
function held() {
  const s = handle.stats;
  return s.spansEnded - s.spansExported - s.spansDropped;
}

/**
 * Flushes until weft holds nothing, or `deadlineMs` has passed. A flush waits at most weft's flush timeout (3 s) and
 * skips a service known to hang; what it kept is retried as the pause after the last failure ends (up to 30 s), and
 * a request still open to a backend that hung is given up on at the export timeout (10 s).
 */
async function drain(deadlineMs) {
  const end = Date.now() + deadlineMs;
  while (held() > 0 && Date.now() < end) {
    await handle.forceFlush();
    if (held() > 0) await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * `{ mode, calls }` times a slice; `{ finish: true }` flushes what weft holds (the parent has made the backend
 * healthy first) and answers with the final counters.
 */
async function serve() {
  for (const mode of job.modes) for (let i = 0; i < job.warmup; i++) await CALLS[mode]();
  process.on('message', (message) => {
    const work = message.finish ? (handle ? drain(60_000) : Promise.resolve()).then(() => ({ stats: counters() })) : slice(message.mode, message.calls);
    work.then(
      (reply) => process.send(reply),
      (err) => {
        process.stderr.write(`${err?.stack ?? err}\n`);
        process.exit(1);
      },
    );
  });
  process.send({ ready: true });
}

serve().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
