// The one canned chat reply of the per-call benchmark, as JSON and as server-sent events, a `fetch` that answers
// with it in memory, and the messages the benchmarks ask it with. The loopback chat server and the in-memory
// transport send the same bytes, so the two transports differ only in the network between client and server.
'use strict';

const MODEL = 'gpt-4o-mini-2024-07-18';
const WORDS = 'The quick brown fox jumps over the lazy dog while the benchmark counts every chunk it sees'.split(' ');
const USAGE = { prompt_tokens: 42, completion_tokens: WORDS.length, total_tokens: 42 + WORDS.length };

// Built once: the server's own cost must be the same, and small, for every configuration.
const plainReply = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: MODEL,
  service_tier: 'default',
  choices: [{ index: 0, message: { role: 'assistant', content: WORDS.join(' '), refusal: null }, finish_reason: 'stop', logprobs: null }],
  usage: USAGE,
  system_fingerprint: 'fp_bench',
});

// Shaped as OpenAI streams chunks today: `service_tier`, and with `stream_options.include_usage` a `usage` key on
// every chunk (null but on the last, usage-only one), followed by the `obfuscation` padding OpenAI adds by default.
function chunk(delta, finish, includeUsage, usage) {
  const body = {
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: MODEL,
    service_tier: 'default',
    system_fingerprint: 'fp_bench',
    choices: usage ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  };
  if (includeUsage) body.usage = usage ?? null;
  body.obfuscation = 'Xq3';
  return `data: ${JSON.stringify(body)}\n\n`;
}

function streamOf(includeUsage) {
  const first = chunk({ role: 'assistant', content: '' }, null, includeUsage);
  const words = WORDS.map((w, i) => chunk({ content: i === 0 ? w : ` ${w}` }, null, includeUsage));
  const rest = [...words, chunk({}, 'stop', includeUsage), includeUsage ? chunk({}, null, true, USAGE) : '', 'data: [DONE]\n\n'].join('');
  return { first, rest };
}
const streamWithUsage = streamOf(true);
const streamWithoutUsage = streamOf(false);

/** A streamed reply's first chunk, which goes out on its own, and the rest; the usage chunk only when asked for. */
function streamedReply(includeUsage) {
  return includeUsage ? streamWithUsage : streamWithoutUsage;
}

/** The messages of every timed call (`percall.cjs`, `phases.cjs`): a system prompt and a question. */
const MESSAGES = [
  { role: 'system', content: 'You are a terse assistant that answers benchmark questions in one sentence.' },
  { role: 'user', content: 'Describe, in one sentence, what a quick brown fox does to a lazy dog.' },
];

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

/** A `fetch` for `new OpenAI({ fetch })` that answers every chat request in memory, with no socket at all. */
async function memoryFetch(_url, init) {
  const body = JSON.parse(init.body);
  if (!body.stream) return new Response(plainReply, { status: 200, headers: JSON_HEADERS });
  const { first, rest } = streamedReply(body.stream_options?.include_usage === true);
  return new Response(first + rest, { status: 200, headers: SSE_HEADERS });
}

module.exports = { MESSAGES, plainReply, streamedReply, memoryFetch, JSON_HEADERS, SSE_HEADERS, STREAM_WORDS: WORDS.length };
