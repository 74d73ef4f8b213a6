import { parseProject } from '../../config/index.js';
import type { HttpCore } from '../core/http.js';
import { ChatCompletions } from './chat/completions.js';
import { type ChatTracingOption, resolveChatTracing } from './chat/trace-chat.js';
import { Models } from './models/models.js';
import { COMPAT_PROJECT_HEADER, checkProjectHeader, OPENAI_PROJECT_HEADER } from './project-header.js';

/** Options of {@link InferenceClient}. */
export interface InferenceClientOptions {
  /**
   * `team/project` that usage and per-project concurrency limits are counted against, sent as the
   * {@link COMPAT_PROJECT_HEADER} header and as {@link OPENAI_PROJECT_HEADER}, the name the hosted service reads.
   * Without it the service uses the key's default entity.
   */
  project?: string | undefined;
  /**
   * The one name to send the project header under, for a deployment that reads another. Default: both
   * {@link COMPAT_PROJECT_HEADER} and {@link OPENAI_PROJECT_HEADER}.
   */
  projectHeader?: string | undefined;
  /**
   * How chat calls are traced: the same options as the `openai` instrumentation (`captureContent`,
   * `redactContent`, …), or `false` for no spans. Default: traced, options from the environment.
   */
  tracing?: ChatTracingOption | undefined;
}

/**
 * The inference service (`WEFT_INFERENCE_BASE_URL`, ending in `/v1`): chat completions and the model list.
 * Usually reached as `client.inference` of a `Client`.
 *
 * @example
 * const client = new Client({ project: 'team/project' });
 * const [model] = (await client.inference.models.list()).data;
 * if (!model) throw new Error('no model is served');
 * const reply = await client.inference.chat.completions.create({
 *   model: model.id,
 *   messages: [{ role: 'user', content: 'Say hi' }],
 * });
 */
export class InferenceClient {
  /** `chat.completions.create()`. */
  readonly chat: { readonly completions: ChatCompletions };
  /** `models.list()`. */
  readonly models: Models;

  /** @param core the HTTP core for the inference service's base URL. */
  constructor(core: HttpCore, options: InferenceClientOptions = {}) {
    const headers: Record<string, string> = {};
    if (options.project !== undefined) {
      const name = checkProjectHeader(options.projectHeader, 'projectHeader');
      const project = parseProject(options.project).id;
      for (const header of name !== undefined ? [name] : [COMPAT_PROJECT_HEADER, OPENAI_PROJECT_HEADER]) headers[header] = project;
    }
    this.chat = {
      completions: new ChatCompletions(core, {
        path: () => '/chat/completions',
        headers,
        tracing: resolveChatTracing(options.tracing),
      }),
    };
    this.models = new Models(core, headers);
  }
}
