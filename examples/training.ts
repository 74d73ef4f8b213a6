/**
 * weft training example: fine-tune a model, watch the job, then chat with the result — all through weft's
 * `Client`, whose chat calls are traced like the `openai` package's.
 *
 * Runs against `weft dev` with no configuration (`npm run dev` in another terminal), or against the real
 * services through the environment:
 *   WEFT_TRAINING_BASE_URL   training service, ends in /v1 (default: weft dev's /training/v1)
 *   WEFT_INFERENCE_BASE_URL  inference service, ends in /v1 (default: weft dev's /v1)
 *   WEFT_BASE_URL            trace service, for the chat spans (default: weft dev)
 *   WEFT_API_KEY, WEFT_PROJECT (entity/project)
 *   WEFT_SFT_DATA            the training data artifact (default: a made-up one that weft dev accepts)
 *
 *   node --import tsx examples/training.ts
 */
import { Client, register } from 'weft';

const weft = register({ serviceName: 'weft-training-example' });
const client = new Client();

try {
  const [entity, project] = weft.project.split('/') as [string, string];
  const model = await client.training.models.create({
    entity,
    project,
    name: 'support-tuned',
    base_model: 'OpenPipe/Qwen3-14B-Instruct',
    return_existing: true,
  });
  console.log(`model:      ${model.entity}/${model.project}/${model.name} (${model.id})`);

  const job = await client.training.jobs.createSft({
    model_id: model.id,
    training_data_url: process.env.WEFT_SFT_DATA ?? `wandb-artifact:///${entity}/${project}/support-chats:v0`,
  });
  const outcome = await client.training.jobs.watch(job.id, {
    onEvent: (event, progress) => {
      if (event.type === 'gradient_step') console.log(`step ${progress.step}:    loss ${progress.metrics.loss ?? '?'}`);
    },
  });
  console.log(`job:        ${outcome.status}${outcome.error ? ` (${outcome.error})` : ''}`);

  let last = 0;
  for await (const checkpoint of client.training.models.checkpoints.listAll(model.id)) last = Math.max(last, checkpoint.step);
  console.log(`checkpoint: step ${last}`);

  const models = await client.inference.models.list();
  const stream = await client.inference.chat.completions.create({
    model: models.data[0]?.id ?? 'meta-llama/Llama-3.1-8B-Instruct',
    messages: [{ role: 'user', content: 'Summarise the training run in one line.' }],
    stream: true,
  });
  let answer = '';
  for await (const chunk of stream) answer += chunk.choices[0]?.delta?.content ?? '';
  console.log(`chat:       ${answer}`);
} finally {
  await client.close();
  await weft.shutdown();
}
