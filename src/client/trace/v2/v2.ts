import type { TraceScope } from '../resource.js';
import type {
  DatasetCreateBody,
  DatasetCreateRes,
  DatasetReadRes,
  EvaluationCreateBody,
  EvaluationCreateRes,
  EvaluationReadRes,
  ModelCreateBody,
  ModelCreateRes,
  ModelReadRes,
  OpCreateBody,
  OpCreateRes,
  OpReadRes,
  ScorerCreateBody,
  ScorerCreateRes,
  ScorerReadRes,
} from '../types/v2.js';
import { EvalResults } from './eval-results.js';
import { EvaluationRuns } from './evaluation-runs.js';
import { V2ObjectResource } from './object-resource.js';
import { Predictions } from './predictions.js';
import { Scores } from './scores.js';

/** The project-scoped resources under `/v2/{entity}/{project}`, for the client's project. `client.trace.v2` */
export class TraceV2 {
  /** Stored evaluation definitions (dataset + scorers). */
  readonly evaluations: V2ObjectResource<EvaluationCreateBody, EvaluationCreateRes, EvaluationReadRes>;
  readonly scores: Scores;
  readonly ops: V2ObjectResource<OpCreateBody, OpCreateRes, OpReadRes>;
  readonly datasets: V2ObjectResource<DatasetCreateBody, DatasetCreateRes, DatasetReadRes>;
  readonly scorers: V2ObjectResource<ScorerCreateBody, ScorerCreateRes, ScorerReadRes>;
  readonly models: V2ObjectResource<ModelCreateBody, ModelCreateRes, ModelReadRes>;
  readonly evaluationRuns: EvaluationRuns;
  readonly predictions: Predictions;
  readonly evalResults: EvalResults;

  constructor(scope: TraceScope) {
    this.evaluations = new V2ObjectResource(scope, 'evaluations');
    this.scores = new Scores(scope);
    this.ops = new V2ObjectResource(scope, 'ops');
    this.datasets = new V2ObjectResource(scope, 'datasets');
    this.scorers = new V2ObjectResource(scope, 'scorers');
    this.models = new V2ObjectResource(scope, 'models');
    this.evaluationRuns = new EvaluationRuns(scope);
    this.predictions = new Predictions(scope);
    this.evalResults = new EvalResults(scope);
  }
}
