import { HttpError } from './http.js';
import type { Route } from './router.js';

/**
 * Every path of the service interface (spec part A, the trace service, and part B, the training
 * service), as method and path. `weft dev` serves a subset; the rest answer 501 naming the operation,
 * so a client sees at once that the stand-in, not its own request, is the limit.
 */
export const SPEC_PATHS: readonly (readonly [method: string, path: string, operation: string])[] = [
  ['POST', '/call/start', 'Call Start'],
  ['POST', '/call/end', 'Call End'],
  ['POST', '/call/read', 'Call Read'],
  ['POST', '/call/update', 'Call Update'],
  ['POST', '/call/upsert_batch', 'Call Start Batch'],
  ['POST', '/calls/delete', 'Calls Delete'],
  ['POST', '/calls/query_stats', 'Calls Query Stats'],
  ['POST', '/calls/stats', 'Call Stats'],
  ['POST', '/calls/stream_query', 'Calls Query Stream'],
  ['POST', '/calls/usage', 'Calls Usage'],
  ['POST', '/trace/usage', 'Trace Usage'],
  ['POST', '/cost/create', 'Cost Create'],
  ['POST', '/cost/purge', 'Cost Purge'],
  ['POST', '/cost/query', 'Cost Query'],
  ['POST', '/feedback/batch/create', 'Feedback Create Batch'],
  ['POST', '/feedback/create', 'Feedback Create'],
  ['POST', '/feedback/payload_schema', 'Feedback Payload Schema'],
  ['POST', '/feedback/purge', 'Feedback Purge'],
  ['POST', '/feedback/query', 'Feedback Query'],
  ['POST', '/feedback/replace', 'Feedback Replace'],
  ['POST', '/feedback/stats', 'Feedback Stats'],
  ['POST', '/file/content', 'File Content'],
  ['POST', '/file/create', 'File Create'],
  ['POST', '/files/query_stats', 'Files Stats'],
  ['GET', '/aliases', 'Aliases List'],
  ['POST', '/obj/create', 'Obj Create'],
  ['POST', '/obj/delete', 'Obj Delete'],
  ['POST', '/obj/read', 'Obj Read'],
  ['POST', '/objs/query', 'Objs Query'],
  ['PUT', '/objs/{object_id}/aliases', 'Obj Set Aliases'],
  ['POST', '/objs/{object_id}/aliases/remove', 'Obj Remove Aliases'],
  ['PUT', '/objs/{object_id}/versions/{digest}/tags', 'Obj Add Tags'],
  ['POST', '/objs/{object_id}/versions/{digest}/tags/remove', 'Obj Remove Tags'],
  ['GET', '/tags', 'Tags List'],
  ['POST', '/otel/v1/traces', 'Export Trace'],
  ['POST', '/refs/read_batch', 'Refs Read Batch'],
  ['GET', '/geolocate', 'Get Caller Location'],
  ['GET', '/health', 'Read Root'],
  ['GET', '/server_info', 'Server Info'],
  ['POST', '/service/projects_info', 'Projects Info'],
  ['GET', '/version', 'Read Version'],
  ['POST', '/table/create', 'Table Create'],
  ['POST', '/table/create_from_digests', 'Table Create From Digests'],
  ['POST', '/table/query', 'Table Query'],
  ['POST', '/table/query_stats', 'Table Query Stats'],
  ['POST', '/table/query_stats_batch', 'Table Query Stats Batch'],
  ['POST', '/table/update', 'Table Update'],
  ['POST', '/table/query_stream', 'Table Query Stream'],
  ['POST', '/threads/stream_query', 'Threads Query Stream'],
  ['GET', '/inference/analysis/{analysis_provider}/models', 'model analysis listing'],
  ['GET', '/inference/{hardware_vendor}/v2/hardware', 'Hardware'],
  ['GET', '/inference/router/{router_provider}/models', 'router model listing'],
  ['POST', '/annotation_queues', 'Annotation Queue Create'],
  ['POST', '/annotation_queues/query', 'Annotation Queues Query Stream'],
  ['POST', '/annotation_queues/stats', 'Annotation Queues Stats'],
  ['DELETE', '/annotation_queues/{queue_id}', 'Annotation Queue Delete'],
  ['GET', '/annotation_queues/{queue_id}', 'Annotation Queue Read'],
  ['PUT', '/annotation_queues/{queue_id}', 'Annotation Queue Update'],
  ['POST', '/annotation_queues/{queue_id}/items', 'Annotation Queue Add Calls'],
  ['POST', '/annotation_queues/{queue_id}/items/query', 'Annotation Queue Items Query'],
  ['POST', '/annotation_queues/{queue_id}/items/{item_id}/progress', 'Annotation Queue Item Progress Update'],
  ['POST', '/evaluations/evaluate_model', 'Evaluate Model'],
  ['POST', '/evaluations/status', 'Evaluation Status'],
  ['POST', '/calls/score', 'Calls Score'],
  ['POST', '/image/create', 'Image Create'],
  ['GET', '/v2/{entity}/{project}/evaluations', 'Evaluation List'],
  ['POST', '/v2/{entity}/{project}/evaluations', 'Evaluation Create'],
  ['DELETE', '/v2/{entity}/{project}/evaluations/{object_id}', 'Evaluation Delete'],
  ['GET', '/v2/{entity}/{project}/evaluations/{object_id}/versions/{digest}', 'Evaluation Read'],
  ['DELETE', '/v2/{entity}/{project}/scores', 'Score Delete'],
  ['GET', '/v2/{entity}/{project}/scores', 'Score List'],
  ['POST', '/v2/{entity}/{project}/scores', 'Score Create'],
  ['GET', '/v2/{entity}/{project}/scores/{score_id}', 'Score Read'],
  ['GET', '/v2/{entity}/{project}/ops', 'Op List'],
  ['POST', '/v2/{entity}/{project}/ops', 'Op Create'],
  ['DELETE', '/v2/{entity}/{project}/ops/{object_id}', 'Op Delete'],
  ['GET', '/v2/{entity}/{project}/ops/{object_id}/versions/{digest}', 'Op Read'],
  ['GET', '/v2/{entity}/{project}/datasets', 'Dataset List'],
  ['POST', '/v2/{entity}/{project}/datasets', 'Dataset Create'],
  ['DELETE', '/v2/{entity}/{project}/datasets/{object_id}', 'Dataset Delete'],
  ['GET', '/v2/{entity}/{project}/datasets/{object_id}/versions/{digest}', 'Dataset Read'],
  ['GET', '/v2/{entity}/{project}/scorers', 'Scorer List'],
  ['POST', '/v2/{entity}/{project}/scorers', 'Scorer Create'],
  ['DELETE', '/v2/{entity}/{project}/scorers/{object_id}', 'Scorer Delete'],
  ['GET', '/v2/{entity}/{project}/scorers/{object_id}/versions/{digest}', 'Scorer Read'],
  ['GET', '/v2/{entity}/{project}/models', 'Model List'],
  ['POST', '/v2/{entity}/{project}/models', 'Model Create'],
  ['DELETE', '/v2/{entity}/{project}/models/{object_id}', 'Model Delete'],
  ['GET', '/v2/{entity}/{project}/models/{object_id}/versions/{digest}', 'Model Read'],
  ['DELETE', '/v2/{entity}/{project}/evaluation_runs', 'Evaluation Run Delete'],
  ['GET', '/v2/{entity}/{project}/evaluation_runs', 'Evaluation Run List'],
  ['POST', '/v2/{entity}/{project}/evaluation_runs', 'Evaluation Run Create'],
  ['GET', '/v2/{entity}/{project}/evaluation_runs/{evaluation_run_id}', 'Evaluation Run Read'],
  ['POST', '/v2/{entity}/{project}/evaluation_runs/{evaluation_run_id}/finish', 'Evaluation Run Finish'],
  ['DELETE', '/v2/{entity}/{project}/predictions', 'Prediction Delete'],
  ['GET', '/v2/{entity}/{project}/predictions', 'Prediction List'],
  ['POST', '/v2/{entity}/{project}/predictions', 'Prediction Create'],
  ['GET', '/v2/{entity}/{project}/predictions/{prediction_id}', 'Prediction Read'],
  ['POST', '/v2/{entity}/{project}/predictions/{prediction_id}/finish', 'Prediction Finish'],
  ['POST', '/v2/{entity}/{project}/eval_results/query', 'Eval Results Query'],
  ['POST', '/v1/chat/completions', 'Create Chat Completion'],
  ['POST', '/v1/chat/completions/', 'Create Chat Completion'],
  ['POST', '/v1/preview/models', 'Create Model'],
  ['DELETE', '/v1/preview/models/{model_id}', 'Delete Model'],
  ['DELETE', '/v1/preview/models/{model_id}/checkpoints', 'Delete Model Checkpoints'],
  ['GET', '/v1/preview/models/{model_id}/checkpoints', 'List Model Checkpoints'],
  ['POST', '/v1/preview/models/{model_id}/log', 'Log'],
  ['POST', '/v1/preview/sft-training-jobs', 'Create Sft Training Job'],
  ['POST', '/v1/preview/training-jobs', 'Create Rl Training Job'],
  ['GET', '/v1/preview/training-jobs/{training_job_id}', 'Get Training Job'],
  ['GET', '/v1/preview/training-jobs/{training_job_id}/events', 'Get Training Job Events'],
  ['GET', '/v1/health', 'Health Check'],
  ['GET', '/v1/system-check', 'System Check'],
];

/**
 * Why `weft dev` leaves an operation to a real deployment, for the operations it does not serve. Each is
 * either something only the hosted service can do, or an endpoint whose payloads no source shows, so that
 * any answer would be invented rather than stood in for.
 */
const UNSERVED_BECAUSE: Record<string, string> = {
  'Feedback Payload Schema': 'no source shows what it takes or answers',
  'Get Caller Location': 'a local service has no caller location to report',
  'Projects Info': 'no source shows what it takes or answers',
  'model analysis listing': 'it lists the hosted inference catalogue, which a local service does not have',
  Hardware: 'it lists the hosted inference hardware, which a local service does not have',
  'router model listing': 'it lists the hosted inference router, which a local service does not have',
  'Evaluate Model': "it runs the evaluation's model and scorer code on the service, which a local stand-in cannot",
  'Evaluation Status': 'it reports on evaluations that only the service runs (see Evaluate Model)',
  'Calls Score': 'it runs scorers on the service, and no source shows its payloads',
  'Image Create': 'it calls a hosted image model',
  'Eval Results Query': 'its answer is not documented beyond total_rows',
};

/**
 * Routes that answer 501 for every spec path the served routes do not cover. Add them after the real
 * routes: the router takes the first match, so served paths never reach these.
 */
export function notImplementedRoutes(served: readonly Route[]): Route[] {
  const key = (method: string, path: string) => `${method} ${path.replace(/\/+$/, '')}`;
  const covered = new Set(served.map((r) => key(r.method, r.path)));
  return SPEC_PATHS.filter(([method, path]) => !covered.has(key(method, path))).map(([method, path, operation]) => {
    const because = UNSERVED_BECAUSE[operation] ? ` (${UNSERVED_BECAUSE[operation]})` : '';
    return {
      method,
      path,
      handler: () => {
        throw new HttpError(
          501,
          `weft dev does not implement "${operation}" (${method} ${path})${because}; it is part of the service interface, so use a real deployment for it.`,
        );
      },
    };
  });
}
