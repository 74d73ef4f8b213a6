/**
 * An evaluation, traced: a small dataset, a model that answers with a chat completion, two scorers, and the
 * loop that runs them, each an op. The trace reads
 *
 *   evaluation
 *   ├─ predictAndScore (one per row, in parallel)
 *   │  ├─ predict
 *   │  │  └─ chat weft-dev/offline-echo   (the `openai` call, traced by weft's instrumentation)
 *   │  ├─ exactMatch
 *   │  └─ containsAnswer
 *   └─ …
 *
 * all in one thread, so the trace service lists the run as one turn of that thread.
 *
 * Run it against the local dev service:
 *   npm run dev                       # in another terminal
 *   npx tsx examples/evaluation.ts
 * Against the platform: set WEFT_BASE_URL, WEFT_PROJECT, WEFT_API_KEY, WEFT_INFERENCE_BASE_URL (and WEFT_MODEL).
 */
import OpenAI from 'openai';
import { DEFAULT_DEV_URL, instrumentOpenAI, op, register, withThread } from 'weft';

// Tracing first: spans go to WEFT_BASE_URL (default: the dev service on this machine).
const weft = register();
// `openai` was imported before tracing started (imports run first), so patch it explicitly.
instrumentOpenAI(OpenAI);

const client = new OpenAI({
  baseURL: process.env.WEFT_INFERENCE_BASE_URL ?? `${DEFAULT_DEV_URL}/v1`,
  // The dev service needs no key; the openai package insists on one.
  apiKey: process.env.WEFT_API_KEY ?? 'local-dev',
  // Sent as OpenAI-Project; null keeps openai from sending OPENAI_PROJECT_ID, an OpenAI project id the service refuses.
  project: process.env.WEFT_PROJECT ?? null,
});
const model = process.env.WEFT_MODEL ?? 'weft-dev/offline-echo';

interface Row {
  question: string;
  expected: string;
}

const dataset: Row[] = [
  { question: 'What is the capital of France?', expected: 'Paris' },
  { question: 'How many legs does a spider have?', expected: '8' },
  { question: 'Is the sky on a clear day blue or green?', expected: 'blue' },
];

/** The model under test. */
const predict = op(async function predict(question: string) {
  const response = await client.chat.completions.create({
    model,
    temperature: 0,
    messages: [
      { role: 'system', content: 'Answer with one word.' },
      { role: 'user', content: question },
    ],
  });
  return response.choices[0]?.message.content ?? '';
});

const exactMatch = op(
  function exactMatch(expected: string, output: string) {
    return { correct: output.trim().toLowerCase() === expected.toLowerCase() };
  },
  { kind: 'scorer' },
);

const containsAnswer = op(
  function containsAnswer(expected: string, output: string) {
    return { contains: output.toLowerCase().includes(expected.toLowerCase()) };
  },
  { kind: 'scorer' },
);

const predictAndScore = op(async function predictAndScore(row: Row) {
  const output = await predict(row.question);
  return {
    output,
    scores: { exactMatch: exactMatch(row.expected, output), containsAnswer: containsAnswer(row.expected, output) },
  };
});

const evaluation = op(
  async function evaluation(rows: Row[]) {
    const results = await Promise.all(rows.map((row) => predictAndScore(row)));
    const share = (hits: number) => hits / results.length;
    return {
      rows: results.length,
      exactMatch: share(results.filter((r) => r.scores.exactMatch.correct).length),
      containsAnswer: share(results.filter((r) => r.scores.containsAnswer.contains).length),
    };
  },
  { kind: 'evaluation', attributes: { model, dataset: 'capitals-and-colours' } },
);

try {
  const summary = await withThread(`evaluation-${Date.now()}`, () => evaluation(dataset));
  console.log('evaluation summary:', summary);
} finally {
  await weft.shutdown();
}
