import { closestName } from './closest-name.js';
import { WeftConfigError } from './errors.js';

/**
 * Where `weft dev` listens unless told otherwise, and so where weft sends everything when nothing is
 * configured (the embedded default). All three services share the one port: the trace service at the
 * root, the inference service under `/v1`, the training service under `/training/v1`.
 */
export const DEFAULT_DEV_HOST = '127.0.0.1';
/** The port `weft dev` listens on unless told otherwise: 4780. */
export const DEFAULT_DEV_PORT = 4780;
/**
 * The base URL weft uses when none is configured: `weft dev` on this machine, `http://127.0.0.1:4780` (the
 * inference service is under its `/v1`, the training service under its `/training/v1`).
 */
export const DEFAULT_DEV_URL = `http://${DEFAULT_DEV_HOST}:${DEFAULT_DEV_PORT}`;

/** The project used when none is configured and weft talks to a local service. */
export const DEFAULT_LOCAL_PROJECT = 'local/default';

/** Environment variables read by `register()` and `new Client()`. */
export const ENV = {
  apiKey: 'WEFT_API_KEY',
  project: 'WEFT_PROJECT',
  baseUrl: 'WEFT_BASE_URL',
  inferenceBaseUrl: 'WEFT_INFERENCE_BASE_URL',
  trainingBaseUrl: 'WEFT_TRAINING_BASE_URL',
  logLevel: 'WEFT_LOG_LEVEL',
} as const;

/** A project in the `entity/project` form that the services use for routing. */
export interface ProjectRef {
  readonly entity: string;
  readonly project: string;
  /** `entity/project`, the form of the trace service's `project_id`. */
  readonly id: string;
}

/** Options shared by everything that talks to the services. Each falls back to its environment variable. */
export interface ConnectionOptions {
  /** API key, sent as `Authorization: Bearer <apiKey>`. Env: `WEFT_API_KEY`. Not needed for `weft dev`. */
  apiKey?: string | undefined;
  /** `entity/project` that traces and objects belong to. Env: `WEFT_PROJECT`. */
  project?: string | undefined;
  /**
   * Trace service address. Env: `WEFT_BASE_URL`. Hosted: `https://host`; self-managed: `https://host/traces`
   * (the path prefix is kept). Default: the local dev service, `http://127.0.0.1:4780`.
   */
  baseUrl?: string | undefined;
}

/** The resolved, validated connection settings. */
export interface Connection {
  readonly apiKey: string | undefined;
  readonly project: ProjectRef;
  /** Normalised, without a trailing slash. */
  readonly baseUrl: string;
}

type Env = Record<string, string | undefined>;

function describe(option: string, envVar: string | undefined): string {
  return envVar ? `option \`${option}\` (env ${envVar})` : `option \`${option}\``;
}

/** What a value is, for an error message, without the value itself (it may be a key). */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** A number as it is (`got -1`), a string quoted, anything else by its type: the `got …` of an option's error. */
export function describeValue(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  return kindOf(value);
}

/**
 * Refuses an option spelled as another library spells it (`openai`'s `baseURL`, `timeout`), when weft's own is not
 * given too: plain JavaScript would leave it unread, and the app would talk to the default service, or wait the
 * default time, without a word. `spellings` maps each such name to weft's.
 */
export function refuseOthersSpelling(options: object, spellings: Readonly<Record<string, string>>): void {
  if (typeof options !== 'object' || options === null) return;
  const given = options as Record<string, unknown>;
  for (const [other, own] of Object.entries(spellings)) {
    if (given[other] === undefined || given[own] !== undefined) continue;
    const envVar = (ENV as Record<string, string>)[own];
    const where = envVar ? ` (env ${envVar})` : '';
    throw new WeftConfigError(own, envVar, `weft: there is no option \`${other}\`; weft's is \`${own}\`${where}.`);
  }
}

/** `openai`'s names of options weft spells otherwise, by weft's spelling. */
export const OPENAI_SPELLINGS = { baseURL: 'baseUrl', inferenceBaseURL: 'inferenceBaseUrl', trainingBaseURL: 'trainingBaseUrl', timeout: 'timeoutMs' };

/**
 * Refuses an option `owner` (`register()`, `weftSpanProcessor()`, `batch`) does not have: plain JavaScript, or an
 * object typed loosely, would leave a misspelt option (`projct`) unread, and the app would run on defaults without
 * a word (`owner` is empty for a nested object, whose `path` prefixes the option's name: `batch.`). An option set
 * to `undefined` counts as not given, as everywhere in weft, and `alsoAccepted` names options read elsewhere (the
 * client's, in a config object shared with `new Client()`). `openai`'s spellings get their own message first.
 */
export function refuseUnknownOptions(
  options: object,
  known: readonly string[],
  owner: string,
  path = '',
  alsoAccepted: readonly string[] = [],
): void {
  if (path === '') refuseOthersSpelling(options, OPENAI_SPELLINGS);
  const candidates = [...known, ...alsoAccepted];
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined || candidates.includes(name)) continue;
    const near = closestName(name, candidates);
    const envVar = near !== undefined && path === '' ? (ENV as Record<string, string>)[near] : undefined;
    const hint =
      near !== undefined
        ? `did you mean \`${path}${near}\`${envVar ? ` (env ${envVar})` : ''}?`
        : `it takes ${known.map((option) => `\`${path}${option}\``).join(', ')}.`;
    const subject = owner ? `${owner} has no option` : 'there is no option';
    throw new WeftConfigError(`${path}${name}`, undefined, `weft: ${subject} \`${path}${name}\`; ${hint}`);
  }
}

/** The option named for an environment variable: `WEFT_API_KEY` is `apiKey`. */
function optionOf(envVar: string): string {
  return (Object.keys(ENV) as (keyof typeof ENV)[]).find((option) => ENV[option] === envVar) ?? envVar;
}

/**
 * Reads an option, else its environment variable; blank strings count as unset, and so does `null` (a plain-JS
 * app's "not set"). Anything but a string, from an app without types, is refused naming the option.
 */
export function pick(value: unknown, envVar: string, env: Env = process.env, option = optionOf(envVar)): string | undefined {
  if (value !== undefined && value !== null && typeof value !== 'string') {
    throw new WeftConfigError(option, envVar, `weft: ${describe(option, envVar)} must be a string, got ${kindOf(value)}.`);
  }
  const chosen = value ?? env[envVar];
  if (chosen === undefined) return undefined;
  const trimmed = chosen.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** Parses `entity/project`, with a clear error naming where the value came from. */
export function parseProject(value: string, option = 'project', envVar: string | undefined = ENV.project): ProjectRef {
  const parts = value.split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1] || /\s/.test(value)) {
    throw new WeftConfigError(
      option,
      envVar,
      `weft: ${describe(option, envVar)} must be "entity/project" (one slash, no spaces), got "${value}".`,
    );
  }
  // It travels in the `project_id` header, which carries printable ASCII only.
  if (/[^\x21-\x7e]/.test(value)) {
    throw new WeftConfigError(
      option,
      envVar,
      `weft: ${describe(option, envVar)} must be printable ASCII (it is sent in a header), got "${value}".`,
    );
  }
  return { entity: parts[0], project: parts[1], id: value };
}

/** Validates an http(s) base URL and returns it without a trailing slash; a path prefix is kept. */
export function parseBaseUrl(value: string, option = 'baseUrl', envVar: string | undefined = ENV.baseUrl): string {
  return checkBaseUrl(value, describe(option, envVar), option, envVar);
}

/** {@link parseBaseUrl}, with `where` saying what the value is in the message. */
function checkBaseUrl(value: string, where: string, option: string, envVar: string | undefined): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new WeftConfigError(option, envVar, `weft: ${where} must be an http:// or https:// URL, got "${withoutUserInfo(value)}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WeftConfigError(option, envVar, `weft: ${where} must be an http:// or https:// URL, got protocol "${url.protocol}".`);
  }
  if (url.username || url.password) {
    throw new WeftConfigError(
      option,
      envVar,
      `weft: ${where} must not carry credentials; use the \`apiKey\` option (env ${ENV.apiKey}).`,
    );
  }
  if (url.search || url.hash) {
    throw new WeftConfigError(
      option,
      envVar,
      `weft: ${where} must not have a query string or fragment, got "${url.origin}${url.pathname}…".`,
    );
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/**
 * A URL that did not parse, fit to quote: whatever comes before an `@` in its authority (`user:key@`) is hidden, as
 * it is most likely a credential.
 */
function withoutUserInfo(value: string): string {
  return value.replace(/^([^:/?#]+:\/\/)?[^/?#]*@/, '$1…@');
}

/** Checks that an API key can travel in a header; the message never repeats the key. */
export function parseApiKey(value: string, option = 'apiKey', envVar: string | undefined = ENV.apiKey): string {
  // Printable ASCII only: a header carries nothing else, and a key that cannot be sent would fail every export.
  if (/[^\x21-\x7e]/.test(value)) {
    throw new WeftConfigError(
      option,
      envVar,
      `weft: ${describe(option, envVar)} must be a single token of printable ASCII, without spaces, control or non-ASCII characters.`,
    );
  }
  return value;
}

/** Joins a base URL (which may carry a path prefix such as `/traces`) and an absolute path. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/**
 * True for addresses that never leave the machine: `localhost` (and `*.localhost`, which resolve to it), an IPv4
 * address in 127.0.0.0/8, and `::1`. A name such as `127.example.com` is an ordinary host.
 */
export function isLoopbackUrl(url: string): boolean {
  // The URL parser writes an IPv4 address in its dotted form (`127.1` and `0x7f.0.0.1` become `127.0.0.1`) and
  // an IPv6 one compressed, in brackets.
  const host = new URL(url).hostname;
  if (host === 'localhost' || host.endsWith('.localhost') || host === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Resolves the connection settings from options, then the environment, then the embedded default
 * (the local dev service). A project is required only when the service is not on this machine.
 */
export function resolveConnection(options: ConnectionOptions = {}, env: Env = process.env): Connection {
  refuseOthersSpelling(options, { baseURL: 'baseUrl' });
  // Read first, so that no message below can quote it (a key pasted into WEFT_PROJECT, or into the base URL).
  const apiKeyValue = pick(options.apiKey, ENV.apiKey, env);
  const apiKey = apiKeyValue === undefined ? undefined : parseApiKey(apiKeyValue);
  return withKeyHidden(apiKey, () => resolveRouting(options, env, apiKey));
}

function resolveRouting(options: ConnectionOptions, env: Env, apiKey: string | undefined): Connection {
  const baseUrlValue = pick(options.baseUrl, ENV.baseUrl, env);
  const baseUrl = baseUrlValue === undefined ? DEFAULT_DEV_URL : parseBaseUrl(baseUrlValue);
  const projectValue = pick(options.project, ENV.project, env);
  let project: ProjectRef;
  if (projectValue !== undefined) project = parseProject(projectValue);
  else if (isLoopbackUrl(baseUrl)) project = parseProject(DEFAULT_LOCAL_PROJECT);
  else {
    throw new WeftConfigError(
      'project',
      ENV.project,
      `weft: ${describe('project', ENV.project)} is required for ${baseUrl}: set it to "entity/project".`,
    );
  }
  return { apiKey, project, baseUrl };
}

/**
 * The API key the options or the environment give, as given, for {@link withKeyHidden}: read before anything else
 * is checked. Undefined when there is none, or it is not a string (whose error then quotes nothing).
 */
export function apiKeyToHide(options: unknown, env: Env = process.env): string | undefined {
  const given = typeof options === 'object' && options !== null ? (options as { apiKey?: unknown }).apiKey : undefined;
  const value = given ?? env[ENV.apiKey];
  return typeof value === 'string' ? value.trim() || undefined : undefined;
}

/**
 * Runs `resolve`; a {@link WeftConfigError} it throws that quotes `apiKey` (a key pasted into the wrong variable) is
 * thrown again with the key replaced by `[REDACTED]`, as a new error, so that its stack does not quote it either.
 */
export function withKeyHidden<T>(apiKey: string | undefined, resolve: () => T): T {
  try {
    return resolve();
  } catch (error) {
    // As short as that, it is no key weft could tell from ordinary words (see secrets.ts).
    if (apiKey && apiKey.length >= 8 && error instanceof WeftConfigError && (error.message + error.option).includes(apiKey)) {
      const hidden = (text: string) => text.split(apiKey).join('[REDACTED]');
      throw new WeftConfigError(hidden(error.option), error.envVar, hidden(error.message));
    }
    throw error;
  }
}

/**
 * Checks the inference and training services' variables (`WEFT_INFERENCE_BASE_URL`, `WEFT_TRAINING_BASE_URL`) where
 * weft is set up without its client: chat tracing reads them to know the platform's services, and would otherwise pass
 * over a bad one without a word.
 *
 * @throws {WeftConfigError} naming the variable, for a value that is not an http(s) URL.
 */
export function checkServiceUrlVariables(env: Env = process.env): void {
  for (const option of ['inferenceBaseUrl', 'trainingBaseUrl'] as const) {
    const envVar = ENV[option];
    const value = pick(undefined, envVar, env, option);
    if (value !== undefined) checkBaseUrl(value, `env ${envVar} (read by chat tracing and the client)`, option, envVar);
  }
}

/**
 * Resolves the base URL of the inference or training service: option, then environment variable, then, below the
 * trace service's base URL when that is on this machine (`weft dev` serves all three on one port, whichever port it
 * was given), else below the default dev service, `/v1` for the inference service and `/training/v1` for the
 * training service (which weft dev serves on its own there, its chat apart from the inference service's). A remote
 * trace service says nothing of where the other two are (the hosted services live on other hosts), so nothing is
 * derived from it.
 *
 * @param traceBaseUrl the trace service's resolved base URL; by default, `WEFT_BASE_URL` from `env`.
 */
export function resolveServiceUrl(
  value: string | undefined,
  option: string,
  envVar: string,
  env: Env = process.env,
  traceBaseUrl: string | undefined = traceBaseUrlFrom(env),
): string {
  const chosen = pick(value, envVar, env, option);
  if (chosen !== undefined) return parseBaseUrl(chosen, option, envVar);
  const devPath = DEV_PATHS[envVar] ?? '/v1';
  return traceBaseUrl !== undefined && isLoopbackUrl(traceBaseUrl) ? joinUrl(traceBaseUrl, devPath) : `${DEFAULT_DEV_URL}${devPath}`;
}

/** Where `weft dev` serves each service below its base URL, by the service's variable. */
const DEV_PATHS: Readonly<Record<string, string>> = {
  [ENV.inferenceBaseUrl]: '/v1',
  [ENV.trainingBaseUrl]: '/training/v1',
};

function traceBaseUrlFrom(env: Env): string | undefined {
  const value = pick(undefined, ENV.baseUrl, env);
  return value === undefined ? undefined : parseBaseUrl(value);
}

/**
 * The warning to give when a key would travel in clear text to another machine (plain http, not loopback), else
 * `undefined`. Shared by `register()`, the Client and `weft jobs watch`; it names the host, never the key.
 */
export function keyInClearWarning(url: string, apiKey: string | undefined): string | undefined {
  if (apiKey === undefined || new URL(url).protocol !== 'http:' || isLoopbackUrl(url)) return undefined;
  return `the API key would travel unencrypted to ${new URL(url).host} (plain http to another machine); use https.`;
}

/**
 * What to check when a service answers 401, naming where the key comes from (`source`), never the key: whether one
 * was sent at all tells which. Shared by the Client's errors, the export's warning and `weft jobs watch`.
 */
export function unauthenticatedHint(keySent: boolean, source = `the \`apiKey\` option or ${ENV.apiKey}`): string {
  return keySent ? ` The API key (${source}) was not accepted.` : ` No API key was sent: set ${source}.`;
}

/** A hint for failure reports: with nothing configured, weft talks to `weft dev`, which may simply not be running. */
export function devServiceHint(baseUrl: string): string {
  return baseUrl === DEFAULT_DEV_URL
    ? ` With nothing configured, weft sends to \`weft dev\` at ${DEFAULT_DEV_URL}: start it with \`npx weft dev\`, or set ${ENV.baseUrl}.`
    : '';
}
