import { validateHeaderValue } from 'node:http';
import { type Connection, ENV, describeValue, kindOf, refuseUnknownOptions, WeftConfigError } from '../config/index.js';
import { reportOnce } from '../diagnostics.js';
import { HEADER_NAME_RULE, isHeaderName } from '../header-name.js';
import { BATCH_OPTION_NAMES, type BatchOptions, type ExportOptions } from './options.js';

// Reading and checking the export options of register() and weftSpanProcessor(): the batch settings (option, then
// OTEL_BSP_* variable, then weft's default), the headers and the compression. The pipeline itself is span-processor.ts.

/** What each batch setting takes: the schedule delay may be 0 (export at once), as OTel's batch processor has it. */
const LEAST: Record<keyof BatchOptions, number> = {
  maxQueueSize: 1,
  maxExportBatchSize: 1,
  scheduledDelayMillis: 0,
  exportTimeoutMillis: 1,
  maxRetrySpans: 1,
};

const expected = (least: number) => (least === 0 ? 'a whole number, 0 or more' : 'a positive integer');

/** A batch option given in code: anything it does not take is refused. */
function batchOption(value: unknown, option: string, least: number): number {
  if (!Number.isSafeInteger(value) || (value as number) < least) {
    throw new WeftConfigError(option, undefined, `weft: option \`${option}\` must be ${expected(least)}, got ${describeValue(value)}.`);
  }
  return value as number;
}

/**
 * A batch setting's default from OTel's standard variable (`OTEL_BSP_*`), when it is set, else weft's own. A blank
 * value counts as unset. The variable is shared with the app's other OTel libraries: one weft cannot use is warned
 * about once and weft's default applies, as OTel's SDK does with a value it cannot read.
 */
function batchSettingFromEnv(envVar: string, fallback: number, option: string, least: number, env: Record<string, string | undefined>): number {
  const raw = env[envVar]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (/^\d+$/.test(raw) && Number.isSafeInteger(value) && value >= least) return value;
  reportOnce(
    `otel-bsp ${envVar}=${raw}`,
    `ignoring ${envVar}=${JSON.stringify(raw.slice(0, 40))} (expected ${expected(least)}); ${option} is ${fallback}, weft's default.`,
  );
  return fallback;
}

/** The `batch` option with each setting's variable and default applied; every value checked. */
export function resolveBatch(batch: BatchOptions = {}, env: Record<string, string | undefined> = process.env) {
  if (batch === null || typeof batch !== 'object' || Array.isArray(batch)) {
    throw new WeftConfigError('batch', undefined, `weft: option \`batch\` must be an object of batch settings, got ${kindOf(batch)}.`);
  }
  refuseUnknownOptions(batch, BATCH_OPTION_NAMES, '', 'batch.');
  // Each option wins over its variable, which wins over weft's default (lower than OTel's: spans of an LLM app are
  // few and large, and a developer wants to see them within a second).
  const setting = (option: keyof BatchOptions, envVar: string | undefined, fallback: number) => {
    const name = `batch.${option}`;
    if (batch[option] !== undefined) return batchOption(batch[option], name, LEAST[option]);
    return envVar === undefined ? fallback : batchSettingFromEnv(envVar, fallback, name, LEAST[option], env);
  };
  return {
    maxQueueSize: setting('maxQueueSize', 'OTEL_BSP_MAX_QUEUE_SIZE', 2048),
    maxExportBatchSize: setting('maxExportBatchSize', 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512),
    scheduledDelayMillis: setting('scheduledDelayMillis', 'OTEL_BSP_SCHEDULE_DELAY', 1000),
    exportTimeoutMillis: setting('exportTimeoutMillis', 'OTEL_BSP_EXPORT_TIMEOUT', 10_000),
    maxRetrySpans: setting('maxRetrySpans', undefined, 2048),
  };
}

/**
 * The headers weft sets itself, and where to set what they carry: a second value would contradict weft's. An
 * `Authorization` of the app's own is sent when no API key is set (a service that wants another scheme, such as
 * the Basic auth the reference suspects of the hosted trace service).
 */
const WEFT_HEADERS: Record<string, ((keySet: boolean) => string | undefined) | undefined> = {
  authorization: (keySet) =>
    keySet
      ? `weft sends the API key as \`Authorization: Bearer <key>\`; with the \`apiKey\` option (env ${ENV.apiKey}) set, leave it to weft, or unset the key to send an Authorization of your own`
      : undefined,
  project_id: () =>
    `it routes spans, and weft sets it from the \`project\` option (env ${ENV.project}), as it does the resource's wandb.project; set the project there`,
};

/**
 * The `headers` option, checked as Node would check them at every request: a name or value it refuses (a line
 * break, a non-ASCII character) would otherwise make every export fail. A name is checked by isHeaderName(), as the
 * client's are. The value is never repeated in the message.
 */
export function checkExportHeaders(headers: unknown, keySet: boolean): Record<string, string> | undefined {
  if (headers === undefined) return undefined;
  const refuse = (why: string): never => {
    throw new WeftConfigError('headers', undefined, `weft: option \`headers\` ${why}.`);
  };
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) refuse('must be an object of header names to string values');
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    if (!isHeaderName(name)) refuse(`has an invalid header name ${JSON.stringify(name.slice(0, 60))}: a name is ${HEADER_NAME_RULE}`);
    // Left out of the request, as OTel's merge does (a plain-JS app's unset variable).
    if (value === undefined) continue;
    const own = WEFT_HEADERS[name.toLowerCase()]?.(keySet);
    if (own) refuse(`must not set "${name}": ${own}`);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      refuse(`has a value for "${name}" that is not a string`);
    }
    try {
      validateHeaderValue(name, String(value));
    } catch {
      refuse(`has an invalid value for "${name}" (a line break or other character not allowed in a header)`);
    }
  }
  return headers as Record<string, string>;
}

/** The export headers: auth (spec: Bearer), the project routing the trace service reads, then the user's extras. */
export function exportHeaders(connection: Connection, extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { project_id: connection.project.id, ...extra };
  if (connection.apiKey !== undefined) headers.Authorization = `Bearer ${connection.apiKey}`;
  return headers;
}

/**
 * The `compression` option: `"gzip"`, `"none"` or unset.
 * @throws {WeftConfigError} for anything else.
 */
export function checkCompression(compression: ExportOptions['compression']): void {
  if (compression !== undefined && compression !== 'gzip' && compression !== 'none') {
    throw new WeftConfigError('compression', undefined, `weft: option \`compression\` must be "gzip" or "none", got "${compression}".`);
  }
}
