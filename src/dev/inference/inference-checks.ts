import type { IncomingMessage } from 'node:http';
import { HttpError } from '../http.js';
import { OFFLINE_MODEL_IDS } from './offline-model.js';

/**
 * The project header's names: the spec's `Compat-Project`, and `OpenAI-Project`, the name the real service
 * reads (reference §0), which the `openai` package sends for its `project` option.
 */
const PROJECT_HEADERS = [
  ['compat-project', 'Compat-Project'],
  ['openai-project', 'OpenAI-Project'],
] as const;

const TEAM_SLASH_PROJECT = /^[^/\s]+\/[^/\s]+$/;

/**
 * Refuses a project header that is not `<team>/<project>`. The service answers a wrong project with 401, as it
 * does a wrong key (reference §0 and §2.7); weft dev knows no teams, so it can only check the form. Like the key
 * check, the answer does not repeat what was sent.
 */
export function checkProjectHeader(req: IncomingMessage): void {
  for (const [key, name] of PROJECT_HEADERS) {
    const value = req.headers[key];
    if (value === undefined) continue;
    if (typeof value === 'string' && TEAM_SLASH_PROJECT.test(value.trim())) continue;
    // openai sends OPENAI_PROJECT_ID there unasked: an OpenAI project id (`proj_…`), which names no project here.
    const fromOpenAI = key === 'openai-project' ? ' The openai package sends the OPENAI_PROJECT_ID variable as this header: unset it, or pass `project: null` to the client.' : '';
    throw new HttpError(
      401,
      `Authentication failed: the ${name} header must be "<team>/<project>" (e.g. "my-team/my-project"), the project that usage is attributed to; leave it out to use your default project.${fromOpenAI}`,
      { code: 'invalid_project' },
    );
  }
}

// A LoRA served from a W&B artifact (reference §2.2 and §1.8): `wandb-artifact:///<team>/<project>/<name>[:<alias>]`,
// or with two slashes, as the training docs write it. The reference has model names treated as opaque strings: any
// artifact URI is taken.
const ARTIFACT_MODEL = /^wandb-artifact:\/\/\S+$/;

/**
 * Refuses a model the service does not serve with a 404 naming it, the answer of OpenAI-compatible servers
 * (the reference documents no body for it). Served: the ids `GET /v1/models` lists, and LoRA artifact URIs,
 * which weft dev cannot resolve and accepts by their form.
 */
export function checkModelServed(model: string): void {
  if ((OFFLINE_MODEL_IDS as readonly string[]).includes(model) || ARTIFACT_MODEL.test(model)) return;
  throw new HttpError(404, `The model \`${model}\` does not exist. GET /v1/models lists the models weft dev serves: ${OFFLINE_MODEL_IDS.join(', ')}.`, {
    param: 'model',
    code: 'model_not_found',
  });
}
