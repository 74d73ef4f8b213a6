import { DiagLogLevel } from '@opentelemetry/api';
import { ENV, WeftConfigError } from './config/index.js';

const LEVELS: Record<string, DiagLogLevel> = {
  none: DiagLogLevel.NONE,
  error: DiagLogLevel.ERROR,
  warn: DiagLogLevel.WARN,
  info: DiagLogLevel.INFO,
  debug: DiagLogLevel.DEBUG,
  verbose: DiagLogLevel.VERBOSE,
  all: DiagLogLevel.ALL,
};
const NAMES = Object.keys(LEVELS).join(', ');

/** The diagnostic level the environment asks for. */
export interface LogLevelSetting {
  readonly level: DiagLogLevel;
  /** Set when `OTEL_LOG_LEVEL` named no level and was ignored: the warning to give about it, once. */
  readonly ignored?: string;
}

/**
 * The diagnostic level from `WEFT_LOG_LEVEL`, else `OTEL_LOG_LEVEL`, else warn; names are read in any case.
 * `WEFT_LOG_LEVEL` is weft's own, so a name it does not know is an error. `OTEL_LOG_LEVEL` is shared with the
 * app's other OTel libraries: as OTel's SDK does, an unknown name is ignored (warn applies) and warned about.
 *
 * @throws {WeftConfigError} for a `WEFT_LOG_LEVEL` that names no level.
 */
export function readLogLevel(env: Record<string, string | undefined> = process.env): LogLevelSetting {
  // A variable set to '' counts as unset, so that an empty WEFT_LOG_LEVEL does not hide OTEL_LOG_LEVEL.
  const weft = env[ENV.logLevel]?.trim();
  if (weft) {
    const level = LEVELS[weft.toLowerCase()];
    if (level === undefined) {
      throw new WeftConfigError('logLevel', ENV.logLevel, `weft: env ${ENV.logLevel} must be one of ${NAMES}; got "${weft}".`);
    }
    return { level };
  }
  const otel = env.OTEL_LOG_LEVEL?.trim();
  if (!otel) return { level: DiagLogLevel.WARN };
  const level = LEVELS[otel.toLowerCase()];
  if (level !== undefined) return { level };
  return { level: DiagLogLevel.WARN, ignored: `ignoring OTEL_LOG_LEVEL="${otel}" (expected one of ${NAMES}); the level is warn.` };
}
