/**
 * weft demo (`npm start`): everything on this machine, no account, no network.
 *
 * 1. starts `weft dev` (trace, inference and training stand-ins) in this process on a free port, or, with
 *    WEFT_BASE_URL set, uses the service there (e.g. `npm run dev -- --api-key K`, with WEFT_API_KEY=K);
 * 2. runs examples/quickstart.ts against it: weft traces an app that uses the real `openai` package;
 * 3. reads the traces back with weft's Client and prints them as trees.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type CallNode, type CallSchema, Client, callName } from 'weft';
import { startDevService } from 'weft/dev';

const PROJECT = 'local/demo';
const quickstart = fileURLToPath(new URL('./quickstart.ts', import.meta.url));

/** Runs the quickstart as its own process (as a user would), pointed at the dev service; prints its output indented. */
function runQuickstart(env: Record<string, string>): Promise<number> {
  // Only the demo's settings: a developer's WEFT_* variables must not send the demo elsewhere.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('WEFT_')));
  const child = spawn(process.execPath, ['--import', 'tsx', quickstart], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout.on('data', (chunk: Buffer) => process.stdout.write(chunk.toString().replace(/^(?=.)/gm, '  │ ')));
  return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
}

function tokens(call: CallSchema): { input: number; output: number; total: number } | undefined {
  const usage = call.summary?.usage;
  if (!usage || Object.keys(usage).length === 0) return undefined;
  let input = 0;
  let output = 0;
  let total = 0;
  for (const u of Object.values(usage)) {
    const i = u.input_tokens ?? u.prompt_tokens ?? 0;
    const o = u.output_tokens ?? u.completion_tokens ?? 0;
    input += i;
    output += o;
    total += u.total_tokens ?? i + o;
  }
  return { input, output, total };
}

function modelOf(call: CallSchema): string {
  const model = (call.attributes as Record<string, unknown>).model;
  if (typeof model === 'string') return model;
  return Object.keys(call.summary?.usage ?? {})[0] ?? '';
}

interface Row {
  label: string;
  model: string;
  tokens: string;
  latency: string;
  status: string;
}

/** One row per call: roots flush left, their descendants under tree connectors. */
function rowsOf(nodes: CallNode[], prefix: string | undefined, out: Row[]): void {
  nodes.forEach((node, i) => {
    const last = i === nodes.length - 1;
    const { call } = node;
    const t = tokens(call);
    const weave = call.summary?.weave;
    const status = weave?.status ?? 'unknown';
    const name = callName(call);
    out.push({
      label: prefix === undefined ? name : `${prefix}${last ? '└─ ' : '├─ '}${name}`,
      model: modelOf(call),
      tokens: t ? `${t.total} (${t.input}→${t.output})` : '',
      latency: weave?.latency_ms === undefined ? '' : `${weave.latency_ms} ms`,
      status: status === 'success' ? '✓ success' : status === 'error' ? `✗ error: ${call.exception ?? ''}` : status,
    });
    rowsOf(node.children, prefix === undefined ? '' : prefix + (last ? '   ' : '│  '), out);
  });
}

function printTable(rows: Row[]): void {
  const header: Row = { label: 'op', model: 'model', tokens: 'tokens (in→out)', latency: 'latency', status: 'status' };
  const all = [header, ...rows];
  const width = (k: keyof Row) => Math.max(...all.map((r) => [...r[k]].length));
  const pad = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - [...s].length));
  const w = { label: width('label'), model: width('model'), tokens: width('tokens'), latency: width('latency') };
  for (const r of all) {
    console.log(`  ${pad(r.label, w.label)}  ${pad(r.model, w.model)}  ${pad(r.tokens, w.tokens)}  ${pad(r.latency, w.latency)}  ${r.status}`);
  }
}

const external = process.env.WEFT_BASE_URL;
const dev = external
  ? {
      url: external,
      v1Url: process.env.WEFT_INFERENCE_BASE_URL ?? `${external}/v1`,
      trainingUrl: process.env.WEFT_TRAINING_BASE_URL ?? `${external}/training/v1`,
      close: async () => {},
    }
  : await startDevService({ port: 0, log: false });
const apiKey = process.env.WEFT_API_KEY;
let exitCode = 0;
try {
  console.log(`weft demo: weft dev is ${external ? 'at' : 'listening on'} ${dev.url} (trace), ${dev.v1Url} (inference) and ${dev.trainingUrl} (training)\n`);
  console.log('▶ examples/quickstart.ts');
  const code = await runQuickstart({
    WEFT_BASE_URL: dev.url,
    WEFT_INFERENCE_BASE_URL: dev.v1Url,
    WEFT_TRAINING_BASE_URL: dev.trainingUrl,
    WEFT_PROJECT: PROJECT,
    ...(apiKey ? { WEFT_API_KEY: apiKey } : {}),
  });
  if (code !== 0) throw new Error(`the quickstart exited with code ${code}`);

  const client = new Client({ baseUrl: dev.url, project: PROJECT });
  try {
    const roots = await client.trace.calls.streamQuery({ filter: { trace_roots_only: true } }).collect();
    if (roots.length === 0) throw new Error('no trace arrived at the dev service');
    let calls = 0;
    let totalTokens = 0;
    console.log(`\n▶ read back with weft's Client: ${roots.length} traces in project ${PROJECT}\n`);
    const rows: Row[] = [];
    for (const root of roots) {
      const tree = await client.trace.calls.tree(root.trace_id);
      const walk = (nodes: CallNode[]) => {
        for (const n of nodes) {
          calls++;
          if (n.children.length === 0) totalTokens += tokens(n.call)?.total ?? 0;
          walk(n.children);
        }
      };
      walk(tree);
      rowsOf(tree, undefined, rows);
    }
    printTable(rows);
    const turns = new Map<string, number>();
    for (const root of roots) if (root.thread_id) turns.set(root.thread_id, (turns.get(root.thread_id) ?? 0) + (root.turn_id ? 1 : 0));
    for (const [thread, count] of turns) console.log(`\n  thread ${thread}: ${count} turns`);
    console.log(`\n${calls} calls, ${totalTokens} tokens from the offline model. Try it live: \`npm run dev\` (weft dev), then \`node --import tsx examples/quickstart.ts\` in another terminal.`);
  } finally {
    await client.close();
  }
} catch (error) {
  console.error(`weft demo failed: ${(error as Error).message}`);
  exitCode = 1;
} finally {
  await dev.close();
}
process.exitCode = exitCode;
