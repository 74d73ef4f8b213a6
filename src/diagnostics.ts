import { type DiagLogger, DiagLogLevel, diag } from '@opentelemetry/api';
import { type LogLevelSetting, readLogLevel } from './log-level.js';
import { otelDiagHasLogger } from './otel-diag.js';
import { scrubSecrets } from './secrets.js';

// weft's own messages go through a component logger, so they read `weft ...` and honour the global level.
const logger: DiagLogger = diag.createComponentLogger({ namespace: 'weft' });

// Keyed on globalThis so that the ESM and CommonJS copies of weft in one process share "once".
const REPORTED_KEY = Symbol.for('weft.diagnostics.reported');
const shared = globalThis as { [REPORTED_KEY]?: Set<string> };
shared[REPORTED_KEY] ??= new Set<string>();
const reported = shared[REPORTED_KEY];

/**
 * Reports a failure of weft's own machinery once per kind, through OTel's diagnostic logger (or, while it has none,
 * as a process warning: see {@link warn}). Later failures of the same kind are logged at debug level only, so a dead
 * backend does not flood the app's logs. The export's kinds name their endpoint (`export-failed <url>`): each service
 * a process sends to is reported on, and the counts of one are never taken for another's.
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
  warn(message);
}

/**
 * Reports a failure of weft's own tracing code (never the app's) once under `kind`: `what` failed, and the error's
 * class. The error's message is left out, since it may quote the value being recorded (a `redactContent` hook's
 * error, request data). The app's call has already gone ahead or goes ahead untraced.
 */
export function reportOwnFailure(kind: string, what: string, error: unknown): void {
  const name = error instanceof Error ? error.name : typeof error;
  reportOnce(kind, `${what} (${name}); the call itself is unaffected.`);
}

/**
 * Logs a warning through weft's component logger. While nobody has given OTel's `diag` a logger (an app that uses
 * only the Client, or weft before `register()`), `diag` would drop it: it is then a Node process warning instead
 * (stderr, `(node:PID) [WEFT] Warning: weft: ...`, unless the app runs with `--no-warnings` or
 * `--disable-warning=WEFT`), at the level of `WEFT_LOG_LEVEL` / `OTEL_LOG_LEVEL`. One or the other, never both.
 */
export function warn(text: string): void {
  const message = scrubSecrets(text);
  if (otelDiagHasLogger()) {
    logger.warn(message);
    return;
  }
  if (logLevelOrWarn() < DiagLogLevel.WARN) return;
  try {
    // Emitted now, not as `process.emitWarning()` does, on a later tick: the warnings that matter most come as the
    // process ends (spans dropped at exit, at a signal, at a crash), where no later tick comes. Node's own listener
    // prints it, unless `--no-warnings` left it out or `--disable-warning=WEFT` names it, as for any warning.
    process.emit('warning', Object.assign(new Error(`weft: ${message}`), { name: 'Warning', code: 'WEFT' }));
  } catch {
    // Nothing of weft's may break the app, its diagnostics least of all.
  }
}

/** The level from the environment, or warn for a bad WEFT_LOG_LEVEL (refused where weft is set up, not here). */
export function logLevelOrWarn(): DiagLogLevel {
  try {
    return readLogLevel().level;
  } catch {
    return DiagLogLevel.WARN;
  }
}

/** Logs a debug line through weft's component logger. */
export function debug(message: string): void {
  logger.debug(scrubSecrets(message));
}

/** Says, once, that `OTEL_LOG_LEVEL` was ignored, when it was; returns the level. */
export function reportIgnoredLogLevel(setting: LogLevelSetting): DiagLogLevel {
  if (setting.ignored) reportOnce('otel-log-level', setting.ignored);
  return setting.level;
}

/**
 * Checks the log level variables where weft is set up (`new Client()`, `weftSpanProcessor()`).
 * @throws {WeftConfigError} for a `WEFT_LOG_LEVEL` that names no level; an unknown `OTEL_LOG_LEVEL` is warned about.
 */
export function checkLogLevel(env: Record<string, string | undefined> = process.env): DiagLogLevel {
  return reportIgnoredLogLevel(readLogLevel(env));
}
