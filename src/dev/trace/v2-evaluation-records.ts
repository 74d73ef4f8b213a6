import type { DevContext } from '../context.js';
import { HttpError, sendJson } from '../http.js';
import type { Route } from '../router.js';
import { checkBody } from '../validate.js';
import type { Collection } from './collection.js';
import { optStr, reqStr } from './fields.js';
import { v2RecordRoutes } from './v2-record-routes.js';
import { v2Ids, v2Project } from './v2-scope.js';

/** `EvaluationRunReadV2Res`. */
interface EvaluationRun {
  evaluation_run_id: string;
  evaluation: string;
  model: string;
  /** `running` until finished, then `success`: the status the service gives the run's call. */
  status: 'running' | 'success';
  started_at: string;
  finished_at: string | null;
  summary: Record<string, unknown> | null;
}

/** `PredictionReadV2Res`. */
interface Prediction {
  prediction_id: string;
  model: string;
  inputs: Record<string, unknown>;
  output: unknown;
  evaluation_run_id: string | null;
}

/** `ScoreReadV2Res`. */
interface Score {
  score_id: string;
  scorer: string;
  value: number;
  evaluation_run_id: string | null;
}

// A record that names a run (or a prediction) must name one that exists, or it would point nowhere.
function checkExists(collection: Collection<object>, projectId: string, id: unknown): string | null {
  if (typeof id !== 'string') return null;
  collection.need(projectId, id);
  return id;
}

/** Keeps records of the run named by `?evaluation_run_id=` (all when absent). */
const byRun = (c: { url: URL }) => {
  const runId = c.url.searchParams.get('evaluation_run_id');
  return (record: { evaluation_run_id: string | null }) => !runId || record.evaluation_run_id === runId;
};

/** Evaluation runs, predictions and scores under `/v2/{entity}/{project}`, with their finish routes. */
export function v2EvaluationRecordRoutes(ctx: DevContext): Route[] {
  const runs = v2RecordRoutes<EvaluationRun>(ctx, {
    collection: 'evaluation_runs',
    noun: 'Evaluation run',
    idField: 'evaluation_run_id',
    deleteParam: 'evaluation_run_ids',
    body: { strict: true, fields: { evaluation: reqStr, model: reqStr } },
    build: (_projectId, id, body) => ({
      evaluation_run_id: id,
      evaluation: body.evaluation as string,
      model: body.model as string,
      status: 'running',
      started_at: new Date().toISOString(),
      finished_at: null,
      summary: null,
    }),
    listFilter: (c) => {
      // The names the service's clients send (`evaluations` and `models` are its interface's, not its query's): a
      // key it does not know is ignored, as FastAPI does, so a client sending the wrong one sees every run here too.
      const [evaluations, models, ids] = ['evaluation_refs', 'model_refs', 'evaluation_run_ids'].map((p) => v2Ids(c, p));
      return (run) =>
        (!evaluations || evaluations.includes(run.evaluation)) && (!models || models.includes(run.model)) && (!ids || ids.includes(run.evaluation_run_id));
    },
  });
  const predictions = v2RecordRoutes<Prediction>(ctx, {
    collection: 'predictions',
    noun: 'Prediction',
    idField: 'prediction_id',
    deleteParam: 'prediction_ids',
    body: { strict: true, fields: { model: reqStr, inputs: { type: 'object', required: true }, output: { type: 'any' }, evaluation_run_id: optStr } },
    build: (projectId, id, body) => ({
      prediction_id: id,
      model: body.model as string,
      inputs: body.inputs as Record<string, unknown>,
      output: body.output ?? null,
      evaluation_run_id: checkExists(runs.records, projectId, body.evaluation_run_id),
    }),
    listFilter: byRun,
  });
  const scores = v2RecordRoutes<Score>(ctx, {
    collection: 'scores',
    noun: 'Score',
    idField: 'score_id',
    deleteParam: 'score_ids',
    body: { strict: true, fields: { prediction_id: reqStr, scorer: reqStr, value: { type: 'number', required: true }, evaluation_run_id: optStr } },
    build: (projectId, id, body) => {
      checkExists(predictions.records, projectId, body.prediction_id);
      return {
        score_id: id,
        scorer: body.scorer as string,
        value: body.value as number,
        evaluation_run_id: checkExists(runs.records, projectId, body.evaluation_run_id),
      };
    },
    listFilter: byRun,
  });

  const finishRun: Route = {
    method: 'POST',
    path: '/v2/{entity}/{project}/evaluation_runs/{evaluation_run_id}/finish',
    handler: async (c) => {
      const projectId = v2Project(c);
      const run = runs.records.need(projectId, c.params.evaluation_run_id!);
      // The client sends `{}` when there is no summary; an empty body is accepted too.
      const raw = (await c.body()).length === 0 ? {} : await c.json();
      const body = checkBody<{ summary?: Record<string, unknown> | null }>(raw, { strict: true, fields: { summary: { type: 'object', nullable: true } } });
      if (run.status !== 'running') throw new HttpError(409, `Evaluation run ${run.evaluation_run_id} is already finished.`);
      runs.records.put(projectId, run.evaluation_run_id, { ...run, status: 'success', finished_at: new Date().toISOString(), summary: body.summary ?? null });
      sendJson(c.res, 200, { success: true });
    },
  };
  const finishPrediction: Route = {
    method: 'POST',
    path: '/v2/{entity}/{project}/predictions/{prediction_id}/finish',
    handler: (c) => {
      // A prediction has no state a read shows; finishing one that exists always succeeds.
      predictions.records.need(v2Project(c), c.params.prediction_id!);
      sendJson(c.res, 200, { success: true });
    },
  };
  return [...runs.routes, finishRun, ...predictions.routes, finishPrediction, ...scores.routes];
}
