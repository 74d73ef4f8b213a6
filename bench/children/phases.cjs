// `npm run bench:phases`: where weft's time to the first streamed chunk goes. One process, the in-memory fetch, and
// weft switched on and off every block of calls (`disable()` unpatches `openai`, so "off" is the bare SDK), the order
// alternating from pair to pair: both sides share the process's warm state and the machine's drift, which separate
// processes do not. Each phase's figure is the median over pairs of (block median on − block median off).
//
// Phases of one streamed call: `create` (the synchronous call), `wait` (until the stream arrives), `iterator`
// (`stream[Symbol.asyncIterator]()`), `first next` (until the first chunk), and `whole` (until the last chunk).
//
// Options: --openai=openai (or openai-v6), --lean (weft recording what OTel contrib records: no content, no usage
// requested), --blocks=16 (pairs of blocks), --calls=1000 (calls per block).
'use strict';

const http = require('node:http');
const os = require('node:os');
const { parseArgs } = require('node:util');
const { MESSAGES, memoryFetch } = require('./canned-chat.cjs');
const { setup } = require('./setups.cjs');

const { values: options } = parseArgs({
  options: {
    openai: { type: 'string', default: 'openai' },
    lean: { type: 'boolean', default: false },
    blocks: { type: 'string', default: '16' },
    calls: { type: 'string', default: '1000' },
  },
});
const blocks = Number(options.blocks);
const calls = Number(options.calls);
for (const [name, value] of [['blocks', blocks], ['calls', calls]]) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, got ${options[name]}`);
}

const PHASES = ['create', 'wait', 'iterator', 'first next', 'whole'];
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** One streamed call, timed phase by phase (ns). */
async function streamedCall(client) {
  const t0 = process.hrtime.bigint();
  const pending = client.chat.completions.create({ model: 'gpt-4o-mini', messages: MESSAGES, temperature: 0.2, max_tokens: 64, stream: true });
  const t1 = process.hrtime.bigint();
  const stream = await pending;
  const t2 = process.hrtime.bigint();
  const iterator = stream[Symbol.asyncIterator]();
  const t3 = process.hrtime.bigint();
  let result = await iterator.next();
  const t4 = process.hrtime.bigint();
  while (!result.done) result = await iterator.next();
  const t5 = process.hrtime.bigint();
  return [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t0].map(Number);
}

/** Block medians per phase (µs), a turn of the event loop after each call so that the exporter runs. */
async function block(client) {
  const phases = PHASES.map(() => []);
  for (let i = 0; i < calls; i++) {
    const times = await streamedCall(client);
    for (const [p, ns] of times.entries()) phases[p].push(ns / 1000);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return phases.map(median);
}

async function main(urls) {
  // Set up as in the per-call bench; switching its one instrumentation off unpatches `openai`, the manual path too.
  const configured = setup(options.lean ? 'weft-lean' : 'weft', options.openai, urls);
  const [instrumentation] = configured.handle.instrumentations;
  const OpenAI = configured.openai.default ?? configured.openai;
  const client = new OpenAI({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-bench-not-a-secret', maxRetries: 0, fetch: memoryFetch });
  const setWeft = (on) => (on ? instrumentation.enable() : instrumentation.disable());

  // Warm-up: both sides compiled and their caches filled before any block counts.
  for (let i = 0; i < 4; i++) {
    for (const on of [true, false]) {
      setWeft(on);
      await block(client);
    }
  }
  const added = PHASES.map(() => []);
  for (let pair = 0; pair < blocks; pair++) {
    const medians = {};
    for (const on of pair % 2 ? [true, false] : [false, true]) {
      setWeft(on);
      medians[on] = await block(client);
    }
    for (const [p, value] of medians.true.entries()) added[p].push(value - medians.false[p]);
  }
  setWeft(true);
  await configured.shutdown();

  const load = os.loadavg()[0].toFixed(2);
  process.stdout.write(
    `\nweft's added time per phase of a streamed call: ${options.openai}, ${options.lean ? 'weft lean' : 'weft defaults'}, ` +
      `in-memory fetch, ${blocks} pairs of ${calls}-call blocks, Node ${process.version}, load ${load}, ${new Date().toISOString()}\n`,
  );
  for (const [p, phase] of PHASES.entries()) {
    const slower = added[p].filter((d) => d > 0).length;
    process.stdout.write(`  ${phase.padEnd(11)} ${median(added[p]).toFixed(1).padStart(6)} µs  (weft slower in ${slower} of ${blocks} pairs)\n`);
  }
  process.stdout.write('  Medians over pairs of (on − off) block medians; the phases of one call do not add up to `whole` exactly.\n');
}

// A loopback OTLP receiver that accepts everything: the export runs as it would against the trace service.
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
});
receiver.listen(0, '127.0.0.1', () => {
  const origin = `http://127.0.0.1:${receiver.address().port}`;
  main({ origin, tracesUrl: `${origin}/otel/v1/traces` })
    .catch((error) => {
      process.exitCode = 1;
      console.error(error);
    })
    .finally(() => receiver.close());
});
