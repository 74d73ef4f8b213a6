// Makes many traced chat calls while the trace backend is down, and samples memory on the way: a bounded
// pipeline drops spans (and counts them) instead of growing. The chat calls go through the real `openai`
// client with an in-process fetch, so the run measures the span pipeline rather than the network.
'use strict';

const { WEFT_PROJECT } = require('./setups.cjs');
const { memoryFetch } = require('./canned-chat.cjs');

const job = JSON.parse(process.env.BENCH_JOB);

function sample(calls) {
  global.gc?.();
  const m = process.memoryUsage();
  return { calls, rssMB: m.rss / 2 ** 20, heapUsedMB: m.heapUsed / 2 ** 20 };
}

async function main() {
  const handle = job.config === 'weft' ? require('weft').register({ baseUrl: job.deadOrigin, project: WEFT_PROJECT }) : undefined;
  const openai = require('openai');
  const OpenAI = openai.default ?? openai;
  const client = new OpenAI({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-bench-not-a-secret', fetch: memoryFetch, maxRetries: 0 });
  const messages = [{ role: 'user', content: 'A question of about a hundred characters, asked many times over to see whether memory grows.' }];
  const samples = [sample(0)];
  const checkpoints = new Set(job.checkpoints);
  let done = 0;
  while (done < job.calls) {
    const batch = Math.min(job.parallel, job.calls - done);
    await Promise.all(Array.from({ length: batch }, () => client.chat.completions.create({ model: 'gpt-4o-mini', messages })));
    done += batch;
    if (checkpoints.has(done)) samples.push(sample(done));
  }
  const dropped = handle ? handle.droppedSpans : null;
  process.stdout.write(`${JSON.stringify({ samples, dropped, stats: handle ? { ...handle.stats } : null })}\n`);
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
