// The one canned chat reply of the per-call benchmark, as JSON and as server-sent events, and a `fetch` that
// answers with it in memory. The loopback chat server and the in-memory transport send the same bytes, so the
// two transports differ only in the network between client and server.
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
  choices: [{ index: 0, message: { role: 'assistant', content: WORDS.join(' '), refusal: null }, finish_reason: 'stop', logprobs: null }],
  usage: USAGE,
  system_fingerprint: 'fp_bench',
});

function chunk(delta, finish, usage) {
  const body = {
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: MODEL,
    system_fingerprint: 'fp_bench',
    choices: usage ? [] : [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    ...(usage ? { usage } : {}),
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

const firstChunk = chunk({ role: 'assistant', content: '' }, null);
const contentChunks = [...WORDS.map((w, i) => chunk({ content: i === 0 ? w : ` ${w}` }, null)), chunk({}, 'stop')].join('');
const usageChunk = chunk({}, null, USAGE);
const done = 'data: [DONE]\n\n';

/** The rest of a streamed reply after its first chunk; the usage chunk only when the request asked for it. */
function restOfStream(includeUsage) {
  return contentChunks + (includeUsage ? usageChunk : '') + done;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

/** A `fetch` for `new OpenAI({ fetch })` that answers every chat request in memory, with no socket at all. */
async function memoryFetch(_url, init) {
  const body = JSON.parse(init.body);
  if (!body.stream) return new Response(plainReply, { status: 200, headers: JSON_HEADERS });
  return new Response(firstChunk + restOfStream(body.stream_options?.include_usage === true), { status: 200, headers: SSE_HEADERS });
}

module.exports = { plainReply, firstChunk, restOfStream, memoryFetch, JSON_HEADERS, SSE_HEADERS, STREAM_WORDS: WORDS.length };
