/**
 * weft quickstart: trace an LLM app in a few lines.
 *
 * Runs against `weft dev` with no configuration (`npm run dev` in another terminal), or against a real
 * deployment through the environment:
 *   WEFT_BASE_URL            trace service (default: weft dev, http://127.0.0.1:4780)
 *   WEFT_INFERENCE_BASE_URL  OpenAI-compatible inference service (default: weft dev's /v1)
 *   WEFT_API_KEY             API key (any key works with weft dev)
 *   WEFT_PROJECT             entity/project (default for weft dev: local/default)
 *   WEFT_MODEL               chat model id, one the inference service lists (default: meta-llama/Llama-3.1-8B-Instruct)
 *
 *   node --import tsx examples/quickstart.ts
 */
import OpenAI from 'openai';
import { DEFAULT_DEV_URL, instrumentOpenAI, op, register, withThread } from 'weft';

// Patch the `openai` package explicitly, so that this file needs no `--import weft/register` loader hook.
instrumentOpenAI(OpenAI);
const weft = register({ serviceName: 'weft-quickstart' });

const model = process.env.WEFT_MODEL ?? 'meta-llama/Llama-3.1-8B-Instruct';
const openai = new OpenAI({
  baseURL: process.env.WEFT_INFERENCE_BASE_URL ?? `${DEFAULT_DEV_URL}/v1`,
  apiKey: process.env.WEFT_API_KEY ?? 'local',
  // The project usage is attributed to (sent as OpenAI-Project). Never openai's OPENAI_PROJECT_ID, which it would
  // send otherwise: an OpenAI project id (`proj_…`), which the inference service refuses with a 401.
  project: process.env.WEFT_PROJECT ?? null,
});

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The current weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

// A tool is just a function; op() makes each call a span with its arguments and result.
const getWeather = op(async function get_weather(city: string) {
  return `sunny and 21°C in ${city}`;
});

/** Three kinds of chat call in one trace: plain, streamed, and a tool round trip. */
const chatTour = op(async function chat_tour() {
  const plain = await openai.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'What is 6 * 7?' }],
  });
  console.log(`plain:    ${plain.choices[0]?.message.content}`);

  const stream = await openai.chat.completions.create({
    model,
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'Say hello to weft' }],
  });
  let streamed = '';
  for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? '';
  console.log(`streamed: ${streamed}`);

  const question = { role: 'user' as const, content: 'Use get_weather: what is the weather in Paris?' };
  const first = await openai.chat.completions.create({ model, tools: [weatherTool], messages: [question] });
  const call = first.choices[0]?.message.tool_calls?.[0];
  if (call?.type !== 'function') {
    console.log(`tool:     (the model answered without a tool) ${first.choices[0]?.message.content}`);
    return;
  }
  const { city } = JSON.parse(call.function.arguments) as { city: string };
  const result = await getWeather(city);
  const final = await openai.chat.completions.create({
    model,
    tools: [weatherTool],
    messages: [question, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: result }],
  });
  console.log(`tool:     ${call.function.name}(${call.function.arguments}) → ${final.choices[0]?.message.content}`);
});

// A small evaluation: each row is predicted and scored by ops; each row is one turn of an evaluation thread.
const rows = [
  { question: 'What is 2 + 3?', expected: '5' },
  { question: 'What is 10 - 4?', expected: '6' },
  { question: 'What is 9 * 9?', expected: '81' },
];

const predict = op(async function predict(question: string) {
  const res = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: question }] });
  return res.choices[0]?.message.content ?? '';
});

const score = op(function exact_answer(output: string, expected: string) {
  return { correct: new RegExp(`\\b${expected}\\b`).test(output) };
});

const evaluateRow = op(
  async function evaluate_row(row: { question: string; expected: string }) {
    const output = await predict(row.question);
    return { output, ...score(output, row.expected) };
  },
  { kind: 'evaluation' },
);

await chatTour();
const threadId = `eval-${Date.now().toString(36)}`;
let correct = 0;
for (const row of rows) {
  const result = await withThread(threadId, () => evaluateRow(row));
  if (result.correct) correct++;
}
console.log(`eval:     ${correct}/${rows.length} correct (thread ${threadId})`);

// Sends every span before the process ends.
await weft.shutdown();
