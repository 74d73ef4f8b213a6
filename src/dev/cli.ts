// `weft dev`'s arguments are read here rather than in src/cli/ because runDevCommand, DEV_USAGE and UsageError are
// part of the public `weft/dev` export (src/dev/index.ts), so an app or a test can start the service as the command
// does; src/cli/main.ts dispatches to it and owns the process (signals, exit codes).
import { parseArgs } from 'node:util';
import { DEFAULT_DEV_HOST, DEFAULT_DEV_PORT, isLoopbackUrl } from '../config/index.js';
import { type DevService, startDevService } from './service.js';

/** The usage text of `weft dev`. */
export const DEV_USAGE = `Usage: weft dev [--port N] [--host H] [--data FILE] [--api-key K] [--max-traces N]
                [--max-records N]

Starts a local stand-in for the trace, inference and training services on one port.
With nothing configured, weft's register() and Client send everything here.

Options:
  --port N         port to listen on (default ${DEFAULT_DEV_PORT}; 0 picks a free port)
  --host H         interface to listen on (default ${DEFAULT_DEV_HOST})
  --data FILE      keep trace and training data in FILE (append-only JSONL, replayed on start); default: memory only
  --api-key K      require "Authorization: Bearer K" on every request (default: any key is accepted);
                   env WEFT_DEV_API_KEY does the same without putting the key on the command line
  --max-traces N   keep at most N traces, evicting the oldest (default 10000)
  --max-records N  keep at most N records of each kind (feedback, costs, annotation queues and items,
                   evaluation runs, predictions, scores), evicting the oldest (default 100000)
  -h, --help       show this help
`;

/** Where the command writes; injectable so that tests can read it. */
export interface CommandIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const defaultIo: CommandIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

function integerOption(value: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < min || n > max) {
    throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got "${value}".`);
  }
  return n;
}

// Addresses that accept connections to 127.0.0.1 too, where weft's clients look by default.
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::']);

/**
 * What a client needs to reach the service when weft's defaults (`http://127.0.0.1:4780`) do not: the base
 * URL of each of the three services. All three, so that the lines are right whether or not a client derives
 * the other two from `WEFT_BASE_URL`. Empty when the defaults reach it.
 */
function clientSettings(service: DevService): string[] {
  const wildcard = WILDCARD_HOSTS.has(service.host);
  if (service.port === DEFAULT_DEV_PORT && (wildcard || service.host === DEFAULT_DEV_HOST)) return [];
  const base = wildcard ? `http://${DEFAULT_DEV_HOST}:${service.port}` : service.url;
  return [
    `  weft's clients look for ${DEFAULT_DEV_HOST}:${DEFAULT_DEV_PORT} unless told otherwise; to use this service, set`,
    `    WEFT_BASE_URL=${base}`,
    `    WEFT_INFERENCE_BASE_URL=${base}/v1`,
    `    WEFT_TRAINING_BASE_URL=${base}/training/v1`,
  ];
}

// What the system says of an address it cannot listen on, or of a data file it cannot use.
const HOST_ERRORS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL', 'EAFNOSUPPORT']);
const FILE_ERRORS = new Set(['EISDIR', 'ENOENT', 'ENOTDIR', 'EACCES', 'EPERM', 'EROFS']);

/** The system's error of a start-up, with the flag it comes from named (a bare `ENOENT` says nothing of --data). */
function withFlagNamed(error: unknown, host: string | undefined, dataFile: string | undefined): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === undefined) return error;
  if (host !== undefined && HOST_ERRORS.has(code)) {
    return new Error(`--host ${host}: cannot listen there (${code}); give an address of this machine, such as 127.0.0.1.`);
  }
  if (dataFile !== undefined && FILE_ERRORS.has(code)) {
    return new Error(`--data ${dataFile}: cannot use it as the data file (${(error as Error).message}).`);
  }
  return error;
}

/** A mistake on the command line; the message says which flag. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * Runs `weft dev` with the arguments after `dev`: starts the service, prints where it listens, and returns
 * it (the caller decides how long it runs). Returns undefined after `--help`.
 *
 * @throws {UsageError} for unknown flags or bad values.
 */
export async function runDevCommand(argv: string[], io: CommandIo = defaultIo): Promise<DevService | undefined> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        data: { type: 'string' },
        'api-key': { type: 'string' },
        'max-traces': { type: 'string' },
        'max-records': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) {
    io.out(DEV_USAGE);
    return undefined;
  }
  // An unset shell variable (`--host "$HOST"`) would otherwise mean every interface, or no data file, unsaid.
  for (const flag of ['host', 'data'] as const) {
    if (values[flag] === '') throw new UsageError(`--${flag} must not be empty.`);
  }
  // The environment keeps the key out of `ps` and shell history; the flag wins when both are given.
  const apiKey = (values['api-key'] as string | undefined) ?? (process.env.WEFT_DEV_API_KEY || undefined);
  if (apiKey !== undefined && (apiKey === '' || /\s/.test(apiKey))) {
    throw new UsageError('--api-key (or WEFT_DEV_API_KEY) must be a single token without spaces.');
  }
  const options = {
    port: integerOption(values.port as string | undefined, '--port', 0, 65535),
    host: values.host as string | undefined,
    dataFile: values.data as string | undefined,
    apiKey,
    maxTraces: integerOption(values['max-traces'] as string | undefined, '--max-traces', 1, Number.MAX_SAFE_INTEGER),
    maxRecords: integerOption(values['max-records'] as string | undefined, '--max-records', 1, Number.MAX_SAFE_INTEGER),
    log: (line: string) => io.err(`weft dev: ${line}\n`),
  };
  let service: DevService;
  try {
    service = await startDevService(options);
  } catch (error) {
    throw withFlagNamed(error, options.host, options.dataFile);
  }
  io.out(
    [
      `weft dev listening on ${service.url}`,
      `  trace service:     ${service.url}  (OTLP: ${service.url}/otel/v1/traces)`,
      `  inference service: ${service.v1Url}  (OpenAI-compatible: /chat/completions, /models)`,
      `  training service:  ${service.trainingUrl}  (/preview/..., /chat/completions)`,
      `  auth:              ${apiKey === undefined ? 'any key accepted' : 'Bearer key required'}`,
      `  storage:           ${values.data ? `${values.data} (append-only)` : 'memory only'}`,
      ...clientSettings(service),
      '',
    ].join('\n'),
  );
  if (apiKey === undefined && !isLoopbackUrl(service.url)) {
    io.err(`weft dev: warning: listening on ${service.host} without --api-key: anyone who can reach this port can read and write its data.\n`);
  }
  return service;
}
