import { type DiagLogger, DiagLogLevel, diag } from '@opentelemetry/api';
import { ENV } from './config/index.js';
import { scrubSecrets } from './secrets.js';

const LEVELS: Record<string, DiagLogLevel> = {
  none: DiagLogLevel.NONE,
  error: DiagLogLevel.ERROR,
  warn: DiagLogLevel.WARN,
  info: DiagLogLevel.INFO,
  debug: DiagLogLevel.DEBUG,
  verbose: DiagLogLevel.VERBOSE,
  all: DiagLogLevel.ALL,
};

/** The diagnostic level from `WEFT_LOG_LEVEL`, else `OTEL_LOG_LEVEL`, else warn. Unknown names fall back to warn. */
export function diagLevelFromEnv(env: Record<string, string | undefined> = process.env): DiagLogLevel {
  // A variable set to '' counts as unset, so that an empty WEFT_LOG_LEVEL does not hide OTEL_LOG_LEVEL.
  const name = (env[ENV.logLevel]?.trim() || env.OTEL_LOG_LEVEL?.trim() || 'warn').toLowerCase();
  return LEVELS[name] ?? DiagLogLevel.WARN;
}

// weft's own messages go through a component logger, so they read `@weft ...` and honour the global level.
const logger: DiagLogger = diag.createComponentLogger({ namespace: 'weft' });

// Keyed on globalThis so that the ESM and CommonJS copies of weft in one process share "once".
const REPORTED_KEY = Symbol.for('weft.diagnostics.reported');
const shared = globalThis as { [REPORTED_KEY]?: Set<string> };
shared[REPORTED_KEY] ??= new Set<string>();
const reported = shared[REPORTED_KEY];

/**
 * Reports a failure of weft's own machinery once per kind, through OTel's diagnostic logger. Later failures of
 * the same kind are logged at debug level only, so a dead backend does not flood the app's logs.
 * Messages must never contain a secret: callers pass descriptions, never headers or options.
 */
export function reportOnce(kind: string, text: string): void {
  // Messages can carry a server's or an error's own words: never let them carry a key into a log line.
  const message = scrubSecrets(text);
  if (reported.has(kind)) {
    logger.debug(message);
    return;
  }
  reported.add(kind);
  logger.warn(message);
}

/** Logs a debug line through weft's component logger. */
export function debug(message: string): void {
  logger.debug(scrubSecrets(message));
}
