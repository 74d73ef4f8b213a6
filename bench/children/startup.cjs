// Measures the set-up a configuration costs: the time from this script's first line to the point where the
// app could make its first traced call (imports, provider, instrumentation, `openai` loaded and patched).
// With `--import weft/register` the registration happens before this script runs, so the bench also reads
// the time since the process started.
'use strict';

const t0 = performance.now();
const { setup } = require('./setups.cjs');

const job = JSON.parse(process.env.BENCH_JOB);
const configured = job.config === 'weft-register' ? { openai: require(job.openai) } : setup(job.config, job.openai, job.urls);
if (typeof (configured.openai.default ?? configured.openai) !== 'function') throw new Error('openai did not load');
const t1 = performance.now();
process.stdout.write(`${JSON.stringify({ scriptMs: t1 - t0, sinceProcessStartMs: t1 })}\n`);
// The flush at exit is not part of start-up; the process ends without waiting on the exporter.
process.exit(0);
