import { parseArgs } from 'node:util';
import { ENV, WeftConfigError, keyInClearWarning, parseApiKey, pick, resolveServiceUrl, unauthenticatedHint } from '../config/index.js';
import { WeftAbortError, WeftError } from '../client/core/errors.js';
import { HttpCore } from '../client/core/http.js';
import { type JobProgress, type TrainingJobEvent, TrainingClient, type WatchJobOutcome } from '../client/training/index.js';
import { isUnreachable } from '../client/training/watch-job.js';

/** Where `weft jobs watch` writes; `isTTY` picks the live progress line over plain lines. */
export interface JobsWatchOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  /** Terminal width; the live line is cut to fit, since a wrapped line cannot be rewritten in place. */
  columns?: number;
}

/** What `runJobsWatch` uses of its surroundings; each part defaults to the process's own. */
export interface JobsWatchIO {
  stdout?: JobsWatchOutput;
  stderr?: JobsWatchOutput;
  env?: Record<string, string | undefined>;
  /** Stops the watch (exit code 130). Default: Ctrl-C (SIGINT) stops it. */
  signal?: AbortSignal;
}

const USAGE = `Usage: weft jobs watch <job-id> [options]

Follows a training job's events until it ends. Exit code 0 when it succeeds, 1 when it fails.

Options:
  --base-url <url>   training service address, ending in /v1 (env ${ENV.trainingBaseUrl};
                     default: the local dev service)
  --interval <s>     seconds between polls while events keep coming (default 1; it backs off when quiet)
  --json             print each event as a JSON line, then the outcome
  -h, --help         show this help

The API key is read from ${ENV.apiKey}.
`;

/** Exit codes of `weft jobs watch`. */
const JOBS_WATCH_EXIT = { succeeded: 0, failed: 1, usage: 2, interrupted: 130 } as const;

/** Metrics shown first when a step reports them; others fill the line up to {@link SHOWN_METRICS}. */
const KEY_METRICS = ['loss', 'reward', 'policy_loss', 'grad_norm', 'entropy', 'learning_rate'];
const SHOWN_METRICS = 4;

/**
 * `weft jobs watch <job-id>`: follows a training job until it ends. In a terminal it keeps one progress
 * line (step, key metrics, elapsed time) rewritten in place; otherwise it prints one plain line per event,
 * or JSON lines with `--json`. Resolves with the exit code: 0 succeeded, 1 failed (or could not be read),
 * 2 bad usage, 130 interrupted.
 *
 * @param argv the arguments after `weft jobs watch`.
 */
export async function runJobsWatch(argv: string[], io: JobsWatchIO = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const env = io.env ?? process.env;

  let parsed: ReturnType<typeof parseJobsWatchArgs>;
  try {
    parsed = parseJobsWatchArgs(argv);
  } catch (error) {
    stderr.write(`weft jobs watch: ${(error as Error).message}\n\n${USAGE}`);
    return JOBS_WATCH_EXIT.usage;
  }
  if (parsed.help) {
    stdout.write(USAGE);
    return JOBS_WATCH_EXIT.succeeded;
  }

  let client: TrainingClient;
  let core: HttpCore;
  try {
    const baseUrl = resolveServiceUrl(parsed.baseUrl, '--base-url', ENV.trainingBaseUrl, env);
    const apiKeyValue = pick(undefined, ENV.apiKey, env);
    const apiKey = apiKeyValue === undefined ? undefined : parseApiKey(apiKeyValue);
    core = new HttpCore({ baseUrl, apiKey, unauthenticatedHint: (sent) => unauthenticatedHint(sent, ENV.apiKey) });
    client = new TrainingClient(core, { tracing: false });
    const inClear = keyInClearWarning(baseUrl, apiKey);
    if (inClear) stderr.write(`weft jobs watch: ${inClear}\n`);
  } catch (error) {
    if (error instanceof WeftConfigError) {
      stderr.write(`${error.message}\n`);
      return JOBS_WATCH_EXIT.usage;
    }
    throw error;
  }

  const { signal, dispose } = interruptSignal(io.signal);
  const view = parsed.json ? new JsonView(stdout) : stdout.isTTY ? new LiveView(stdout, parsed.jobId) : new PlainView(stdout, parsed.jobId);
  try {
    view.start();
    const outcome = await client.jobs.watch(parsed.jobId, {
      signal,
      pollIntervalMs: parsed.intervalMs,
      onEvent: (event, progress) => view.event(event, progress),
    });
    view.finish(outcome);
    return outcome.status === 'succeeded' ? JOBS_WATCH_EXIT.succeeded : JOBS_WATCH_EXIT.failed;
  } catch (error) {
    view.stop();
    if (error instanceof WeftAbortError) {
      stderr.write(`weft jobs watch: stopped; job ${parsed.jobId} keeps running.\n`);
      return JOBS_WATCH_EXIT.interrupted;
    }
    if (isUnreachable(error)) {
      stderr.write(
        `weft jobs watch: cannot reach the training service at ${core.baseUrl} (${error.code}).\n` +
          `Is it running? Start the local one with \`weft dev\`, or give its address with --base-url or ${ENV.trainingBaseUrl}.\n`,
      );
      return JOBS_WATCH_EXIT.failed;
    }
    if (error instanceof WeftError) {
      // weft's errors say `weft: …` themselves.
      stderr.write(`weft jobs watch: ${error.message.replace(/^weft: /, '')}\n`);
      return JOBS_WATCH_EXIT.failed;
    }
    throw error;
  } finally {
    dispose();
    await core.close();
  }
}

function parseJobsWatchArgs(argv: string[]): { jobId: string; baseUrl?: string; intervalMs?: number; json: boolean; help: boolean } {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      'base-url': { type: 'string' },
      interval: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { jobId: '', json: false, help: true };
  if (positionals.length !== 1 || !positionals[0]) {
    throw new Error(positionals.length === 0 ? 'a job id is required.' : `one job id expected, got ${positionals.length}.`);
  }
  const result: { jobId: string; baseUrl?: string; intervalMs?: number; json: boolean; help: boolean } = {
    jobId: positionals[0],
    json: values.json ?? false,
    help: false,
  };
  if (values['base-url'] !== undefined) result.baseUrl = values['base-url'];
  if (values.interval !== undefined) {
    const seconds = Number(values.interval);
    // Below 1 ms it would poll the service in a loop; above an hour the watch would say nothing for hours.
    if (!Number.isFinite(seconds) || seconds < 0.001 || seconds > 3600) {
      throw new Error(`--interval must be a number of seconds from 0.001 to 3600, got "${values.interval}".`);
    }
    result.intervalMs = seconds * 1000;
  }
  return result;
}

/** The caller's signal, or one that Ctrl-C fires for as long as the watch runs. */
function interruptSignal(given: AbortSignal | undefined): { signal: AbortSignal; dispose: () => void } {
  if (given) return { signal: given, dispose: () => {} };
  const controller = new AbortController();
  const onInterrupt = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onInterrupt);
  return { signal: controller.signal, dispose: () => process.off('SIGINT', onInterrupt) };
}

/** How the watch is shown. */
interface WatchView {
  start(): void;
  event(event: TrainingJobEvent, progress: JobProgress): void;
  finish(outcome: WatchJobOutcome): void;
  /** Leaves the terminal tidy after an error. */
  stop(): void;
}

/** One line per event, for logs and pipes. */
class PlainView implements WatchView {
  private readonly startedAt = Date.now();

  constructor(
    private readonly out: JobsWatchOutput,
    private readonly jobId: string,
  ) {}

  start(): void {
    this.out.write(`watching job ${this.jobId}\n`);
  }

  event(event: TrainingJobEvent, progress: JobProgress): void {
    const line = describeEvent(event, progress);
    if (line !== undefined) this.out.write(`[${formatElapsed(Date.now() - this.startedAt)}] ${line}\n`);
  }

  finish(): void {}

  stop(): void {}
}

/** One line, rewritten in place, for a terminal. */
class LiveView implements WatchView {
  private readonly startedAt = Date.now();
  private progress: JobProgress | undefined;
  private ticker: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: JobsWatchOutput,
    private readonly jobId: string,
  ) {}

  start(): void {
    this.render();
    // Elapsed time moves even while the job is quiet.
    this.ticker = setInterval(() => this.render(), 1000);
    this.ticker.unref();
  }

  event(_event: TrainingJobEvent, progress: JobProgress): void {
    this.progress = progress;
    this.render();
  }

  finish(outcome: WatchJobOutcome): void {
    this.progress = outcome.progress;
    this.stop();
    const verdict = outcome.status === 'succeeded' ? 'succeeded' : `failed: ${outcome.error ?? ''}`;
    this.out.write(`job ${this.jobId} ${verdict}\n`);
  }

  stop(): void {
    clearInterval(this.ticker);
    this.ticker = undefined;
    this.render();
    this.out.write('\n');
  }

  private render(): void {
    const parts = [`job ${this.jobId}`, this.progress?.status ?? 'waiting'];
    if (this.progress) {
      parts.push(formatStep(this.progress));
      const metrics = formatMetrics(this.progress.metrics);
      if (metrics) parts.push(metrics);
    }
    parts.push(formatElapsed(Date.now() - this.startedAt));
    let line = parts.join('  ');
    const width = this.out.columns;
    if (width !== undefined && width > 1 && line.length >= width) line = `${line.slice(0, width - 2)}…`;
    // Carriage return and erase-line, so a shorter line leaves no tail of the longer one before it.
    this.out.write(`\r\x1b[2K${line}`);
  }
}

/** Events as JSON lines, then the outcome, for scripts. */
class JsonView implements WatchView {
  constructor(private readonly out: JobsWatchOutput) {}

  start(): void {}

  event(event: TrainingJobEvent): void {
    this.out.write(`${JSON.stringify(event)}\n`);
  }

  finish(outcome: WatchJobOutcome): void {
    const summary: Record<string, unknown> = { outcome: outcome.status, steps: outcome.progress.step };
    if (outcome.error !== undefined) summary.error = outcome.error;
    this.out.write(`${JSON.stringify(summary)}\n`);
  }

  stop(): void {}
}

function describeEvent(event: TrainingJobEvent, progress: JobProgress): string | undefined {
  switch (event.type) {
    case 'training_started':
      return progress.totalSteps === undefined ? 'started' : `started (${progress.totalSteps} steps expected)`;
    case 'gradient_step': {
      const metrics = formatMetrics(progress.metrics);
      return metrics ? `${formatStep(progress)} ${metrics}` : formatStep(progress);
    }
    case 'training_ended':
      return `succeeded after ${progress.step} step${progress.step === 1 ? '' : 's'}`;
    case 'training_failed':
      return `failed: ${progress.error ?? ''}`;
    default:
      return `${String(event.type)} ${JSON.stringify(event.data)}`;
  }
}

function formatStep(progress: JobProgress): string {
  return progress.totalSteps === undefined ? `step ${progress.step}` : `step ${progress.step}/${progress.totalSteps}`;
}

/** The key metrics first, then others, up to a few, as `name=value`. */
function formatMetrics(metrics: Record<string, number>): string {
  const names = [
    ...KEY_METRICS.filter((name) => name in metrics),
    ...Object.keys(metrics).filter((name) => !KEY_METRICS.includes(name) && name !== 'gradient_step'),
  ].slice(0, SHOWN_METRICS);
  return names.map((name) => `${name}=${formatNumber(metrics[name] as number)}`).join(' ');
}

function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-3 && magnitude < 1e6) return String(Number(value.toPrecision(4)));
  return value.toExponential(2);
}

/** `42s`, `3m04s`, `1h02m`. */
function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
