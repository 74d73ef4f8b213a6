import { HttpError, sendJson } from '../http.js';
import type { RequestContext, Route } from '../router.js';
import { checkBody, checkOneOf, checkUuid } from '../validate.js';
import { trainingChatRoute } from './chat-route.js';
import { paginate, readCursor } from './paging.js';
import type { TrainingSimulator } from './simulator.js';
import { checkTrainable, type TrajectoryGroup, TRAJECTORY_GROUPS } from './trajectories.js';

const str = { type: 'string' } as const;
const optObj = { type: 'object', nullable: true } as const;
const uuid = { type: 'uuid', required: true } as const;

// The service types its path ids as UUIDs: FastAPI answers anything else with a 422 before looking it up.
const pathUuid = (c: RequestContext, name: string): string => checkUuid(c.params[name], ['path', name]);

// A job fails on purpose when its experimental config asks: `{simulate_failure: true | "message"}`.
function failureOf(config: Record<string, unknown> | null | undefined): string | undefined {
  const flag = config?.simulate_failure;
  if (flag === undefined || flag === null || flag === false) return undefined;
  return typeof flag === 'string' && flag !== '' ? flag : 'Simulated training failure (experimental_config.simulate_failure)';
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

function rlMetrics(groups: TrajectoryGroup[], learningRate: number) {
  return (step: number): Record<string, number> => {
    const group = groups[(step - 1) % groups.length];
    const rewards = (group?.trajectories ?? []).map((t) => (typeof t.reward === 'number' ? t.reward : 0));
    const mean = rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : 0;
    const std = rewards.length ? Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / rewards.length) : 0;
    return {
      loss: round(1 / (step + 1)),
      reward: round(mean),
      reward_std_dev: round(std),
      num_trajectories: rewards.length,
      grad_norm: round(0.5 / step),
      learning_rate: learningRate,
      gradient_step: step,
    };
  };
}

function sftMetrics(learningRate: number) {
  return (step: number): Record<string, number> => ({
    loss: round(2 / (step + 1)),
    learning_rate: learningRate,
    num_tokens: 1000 * step,
    gradient_step: step,
  });
}

const ORDERS = ['asc', 'desc'] as const;

// The checkpoint list's `?order=`, `asc` when not given.
const order = (url: URL): 'asc' | 'desc' => checkOneOf(url.searchParams.get('order') ?? 'asc', ORDERS, ['query', 'order']);

/** Where weft dev serves the training service on its own, `/training/v1`: weft's default for it. */
export const TRAINING_PREFIX = '/training';

/**
 * The training service: models and checkpoints, RL and SFT jobs with their events, health and system check, and its
 * chat endpoint, with jobs run in {@link TrainingSimulator}. Served twice: under `/training/v1`, its own base, where
 * `/chat/completions` is the training service's with or without the trailing slash, as on the hosted one; and under
 * the `/v1` it shares with the inference service, where only the trailing-slash chat path is the training service's.
 */
export function trainingRoutes(sim: TrainingSimulator, defaultEntity: string): Route[] {
  const routes = sharedV1Routes(sim, defaultEntity);
  const chat = trainingChatRoute();
  return [
    ...routes,
    ...routes.map((route) => ({ ...route, path: `${TRAINING_PREFIX}${route.path}` })),
    { ...chat, path: `${TRAINING_PREFIX}${chat.path.slice(0, -1)}` },
  ];
}

/** The training service's routes under `/v1`. */
function sharedV1Routes(sim: TrainingSimulator, defaultEntity: string): Route[] {
  return [
    trainingChatRoute(),
    {
      method: 'POST',
      path: '/v1/preview/models',
      handler: async (c) => {
        const body = checkBody<{ entity?: string | null; project: string; name: string; base_model: string; return_existing?: boolean | null }>(
          await c.json(),
          {
            fields: {
              entity: { ...str, nullable: true },
              project: { ...str, required: true },
              name: { ...str, required: true },
              base_model: { ...str, required: true },
              return_existing: { type: 'boolean', nullable: true },
            },
          },
        );
        sendJson(
          c.res,
          200,
          sim.createModel({
            entity: body.entity || defaultEntity,
            project: body.project,
            name: body.name,
            base_model: body.base_model,
            return_existing: body.return_existing ?? false,
          }),
        );
      },
    },
    {
      method: 'DELETE',
      path: '/v1/preview/models/{model_id}',
      handler: (c) => sendJson(c.res, 200, sim.deleteModel(pathUuid(c, 'model_id'))),
    },
    {
      method: 'GET',
      path: '/v1/preview/models/{model_id}/checkpoints',
      handler: (c) => {
        // The query is checked before the model is looked up, as FastAPI checks it before the handler runs.
        const id = pathUuid(c, 'model_id');
        const cursor = readCursor(c.url);
        const direction = order(c.url);
        sendJson(c.res, 200, paginate(sim.checkpoints(id, direction), cursor, 'checkpoint'));
      },
    },
    {
      method: 'DELETE',
      path: '/v1/preview/models/{model_id}/checkpoints',
      handler: async (c) => {
        const modelId = pathUuid(c, 'model_id');
        const body = checkBody<{ steps: number[] }>(await c.json(), {
          fields: { steps: { type: 'array', required: true, items: { type: 'integer' } } },
        });
        sendJson(c.res, 200, sim.deleteCheckpoints(modelId, body.steps));
      },
    },
    {
      method: 'POST',
      path: '/v1/preview/models/{model_id}/log',
      handler: async (c) => {
        const modelId = pathUuid(c, 'model_id');
        checkBody(await c.json(), {
          fields: {
            split: { ...str, required: true },
            trajectory_groups: { type: 'array', required: true, items: { type: 'object' } },
            model_id: str,
          },
        });
        sim.model(modelId);
        sendJson(c.res, 200, {});
      },
    },
    {
      method: 'POST',
      path: '/v1/preview/training-jobs',
      handler: async (c) => {
        const body = checkBody<{ model_id: string; trajectory_groups: TrajectoryGroup[]; experimental_config?: Record<string, unknown> | null }>(
          await c.json(),
          {
            fields: { model_id: uuid, trajectory_groups: TRAJECTORY_GROUPS, experimental_config: optObj },
          },
        );
        if (body.trajectory_groups.length === 0) {
          throw new HttpError(422, [{ loc: ['body', 'trajectory_groups'], msg: 'List should have at least 1 item', type: 'too_short' }]);
        }
        checkTrainable(body.trajectory_groups, body.experimental_config?.allow_training_without_logprobs === true);
        const lr = body.experimental_config?.learning_rate;
        sendJson(
          c.res,
          200,
          sim.createJob({
            kind: 'rl',
            modelId: checkUuid(body.model_id, ['body', 'model_id']),
            steps: Math.min(body.trajectory_groups.length, 4),
            failure: failureOf(body.experimental_config),
            metrics: rlMetrics(body.trajectory_groups, typeof lr === 'number' ? lr : 5e-6),
          }),
        );
      },
    },
    {
      method: 'POST',
      path: '/v1/preview/sft-training-jobs',
      handler: async (c) => {
        const body = checkBody<{
          model_id: string;
          training_data_url: string;
          config?: Record<string, unknown> | null;
          experimental_config?: Record<string, unknown> | null;
        }>(await c.json(), {
          fields: {
            model_id: uuid,
            training_data_url: { ...str, required: true },
            config: optObj,
            experimental_config: optObj,
          },
        });
        const lr = body.config?.learning_rate;
        sendJson(
          c.res,
          200,
          sim.createJob({
            kind: 'sft',
            modelId: checkUuid(body.model_id, ['body', 'model_id']),
            steps: 3,
            failure: failureOf(body.experimental_config),
            metrics: sftMetrics(typeof lr === 'number' ? lr : 5e-5),
            dataUrl: body.training_data_url,
          }),
        );
      },
    },
    {
      method: 'GET',
      path: '/v1/preview/training-jobs/{training_job_id}',
      handler: (c) => sendJson(c.res, 200, sim.job(pathUuid(c, 'training_job_id'))),
    },
    {
      method: 'GET',
      path: '/v1/preview/training-jobs/{training_job_id}/events',
      handler: (c) => {
        const id = pathUuid(c, 'training_job_id');
        const cursor = readCursor(c.url);
        sendJson(c.res, 200, paginate(sim.events(id), cursor, 'event'));
      },
    },
    { method: 'GET', path: '/v1/health', auth: false, handler: (c) => sendJson(c.res, 200, { status: 'ok' }) },
    {
      method: 'GET',
      path: '/v1/system-check',
      auth: false,
      handler: (c) => {
        const queue = { success: true, duration: 0, errors: [] };
        sendJson(c.res, 200, { api: true, database: true, cpu_queue: queue, gpu_queue: queue });
      },
    },
  ];
}
