// `npm run bench:mapping`: what weft's one mapping of chat calls to span attributes costs on its own, on the per-call
// bench's own request and replies (children/canned-chat.cjs). No span, no SDK, no export: the share of a traced call
// that the mapping is, piece by piece, for weft's defaults and for weft lean (no content, no usage requested). The
// pieces are the request's content (recorded as the span ends), adding a stream's chunks up, the completion they
// add up to, and the response's attributes. See docs/PERFORMANCE.md.
//
// Options: --rounds=7, --iterations=20000 (per piece and round). Prints the median over rounds, ns per call.
import { createRequire } from 'node:module';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { chatRequestContentAttributes, chatResponseAttributes } from '../src/instrumentation/chat/attributes.js';
import { resolveChatTracingConfig } from '../src/instrumentation/chat/config.js';
import { ChatStreamAccumulator } from '../src/instrumentation/chat/stream-accumulator.js';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../src/instrumentation/chat/types.js';
import { rememberSecret } from '../src/secrets.js';
import { fmt, median } from './lib/stats.js';
import { printTable } from './lib/table.js';

const { MESSAGES, plainReply, streamedReply } = createRequire(import.meta.url)('./children/canned-chat.cjs');

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' }, iterations: { type: 'string', default: '20000' } } });
const rounds = Number(values.rounds);
const iterations = Number(values.iterations);
for (const [name, value] of [['rounds', rounds], ['iterations', iterations]] as const) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, got ${values[name]}`);
}

/** The chunks of a canned stream, as the SDK parses them from its server-sent events. */
function chunksOf(includeUsage: boolean): ChatCompletionChunk[] {
  const { first, rest } = streamedReply(includeUsage) as { first: string; rest: string };
  return `${first}${rest}`
    .split('\n\n')
    .map((event) => event.replace(/^data: /, ''))
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as ChatCompletionChunk);
}

// As in a traced call: the client's key is known, so every recorded text is scrubbed of it.
rememberSecret('sk-bench-mapping-0123456789abcdef');

const request: ChatCompletionRequest = { model: 'gpt-4o-mini', messages: MESSAGES, temperature: 0.2, max_tokens: 64, stream: true };
const plain = JSON.parse(plainReply) as ChatCompletion;
const setups = [
  { name: 'weft', config: resolveChatTracingConfig({}), chunks: chunksOf(true) },
  { name: 'weft, lean', config: resolveChatTracingConfig({ captureContent: false, requestStreamUsage: false }), chunks: chunksOf(false) },
];

/** ns per call of `piece`, over `iterations` calls. */
function time(piece: () => unknown): number {
  let kept: unknown;
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) kept = piece();
  const ns = Number(process.hrtime.bigint() - started) / iterations;
  if (kept === undefined) throw new Error('a piece of the mapping returned nothing');
  return ns;
}

const pieces = setups.flatMap(({ name, config, chunks }) => {
  const accumulated = new ChatStreamAccumulator(config.captureOutput);
  for (const chunk of chunks) accumulated.add(chunk);
  const completion = accumulated.toCompletion();
  const addUp = () => {
    const accumulator = new ChatStreamAccumulator(config.captureOutput);
    for (const chunk of chunks) accumulator.add(chunk);
    return accumulator;
  };
  return [
    { setup: name, piece: 'request content', run: () => chatRequestContentAttributes(request, config) },
    { setup: name, piece: `stream: add up ${chunks.length} chunks`, run: addUp },
    { setup: name, piece: 'stream: the completion', run: () => accumulated.toCompletion() },
    { setup: name, piece: 'stream: response attributes', run: () => chatResponseAttributes(completion, config, 'openai') },
    { setup: name, piece: 'plain: response attributes', run: () => chatResponseAttributes(plain, config, 'openai') },
  ];
});

const samples = pieces.map(() => [] as number[]);
for (let round = 0; round <= rounds; round++) {
  pieces.forEach((piece, i) => {
    const ns = time(piece.run);
    if (round > 0) samples[i]!.push(ns); // round 0 warms up
  });
}

printTable(
  `The chat mapping alone: ns per call, median of ${rounds} rounds of ${iterations.toLocaleString('en-US')}`,
  ['configuration', 'piece', 'ns'],
  pieces.map((piece, i) => [piece.setup, piece.piece, fmt(median(samples[i]!), 0)]),
  [`Node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown CPU'}, load ${os.loadavg()[0]!.toFixed(2)}`],
);
