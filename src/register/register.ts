import {
  context,
  createContextKey,
  DiagConsoleLogger,
  DiagLogLevel,
  diag,
  propagation,
  ROOT_CONTEXT,
  type TextMapPropagator,
  trace,
} from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { type Instrumentation, registerInstrumentations } from '@opentelemetry/instrumentation';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { existingSharedOpenAIInstrumentation, OPENAI_INSTRUMENTATION_NAME } from '../instrumentation/openai/index.js';
import { type ChatTracingConfig, resolveChatTracingConfig, weftInstrumentations } from '../instrumentation/index.js';
import { rememberPlatformBaseUrl, rememberPlatformServiceUrl } from '../instrumentation/chat/server.js';
import { WeftContextSpanProcessor } from '../tracing/index.js';
import { setGlobalWeftContextManager, setWeftContextManager } from '../tracing/active-context.js';
import { WeftContextManager } from '../tracing/context-manager.js';
import { isNoopTracerProvider } from '../tracing/noop-provider.js';
import { setWeftTracerProvider } from '../tracing/tracer.js';
import { endUnfinished } from '../tracing/unfinished.js';
import { apiKeyToHide, checkServiceUrlVariables, ENV, kindOf, parseBaseUrl, resolveConnection, WeftConfigError, withKeyHidden } from '../config/index.js';
import { logLevelOrWarn, reportIgnoredLogLevel, reportOnce, reportOwnFailure } from '../diagnostics.js';
import { readLogLevel } from '../log-level.js';
import { createExportStats, type ExportStats } from './export-stats.js';
import { failureReporter, resolveFlushTimeout } from './flush-timeout.js';
import { warnIfBundledOpenAIUnpatched } from './bundled.js';
import { pipelineFlushing } from './pipeline-flushing.js';
import { CHAT_TRACING_OPTIONS, type RegisterOptions } from './options.js';
import { warnIfOtlpEndpointIgnored } from './otlp-variables.js';
import { GIVEN_OPTIONS_KEY, STATE_KEY, state, ZERO_CODE_KEY } from './registration.js';
import { buildResource, routingAttributes } from './resource.js';
import { sdkDisabled } from './sdk-disabled.js';
import { checkRegisterOptions } from './check-options.js';
import { exportPipeline } from './span-processor.js';
import { sayRegisteredAgain } from './registered-again.js';

/** What {@link register} returns: the provider it built, and the means to flush and stop it. */
export interface WeftHandle {
  /** The tracer provider; also the global one unless `global: false` or another was registered first. */
  readonly tracerProvider: BasicTracerProvider;
  /** True when this provider is the global one. */
  readonly isGlobal: boolean;
  /** Where spans go, `{baseUrl}/otel/v1/traces`. */
  readonly endpoint: string;
  /** The `entity/project` spans are routed to. */
  readonly project: string;
  /** Counters of the export pipeline. */
  readonly stats: Readonly<ExportStats>;
  /**
   * Spans dropped so far: queue full while the backend was down, refused, unsent at shutdown, or not yet exported
   * when the process ended (counted at its `exit` event, or before weft raises a signal again).
   *
   * @example
   * process.on('exit', () => console.log(`weft dropped ${weft.droppedSpans} span(s)`));
   */
  readonly droppedSpans: number;
  /** The instrumentations that were enabled. */
  readonly instrumentations: readonly Instrumentation[];
  /**
   * Sends every ended span now, waiting at most the flush timeout (`exitFlushTimeoutMillis`); spans not sent by
   * then are kept for the next attempt. A service known to be down gets one attempt, or none while it is known to
   * hang. Never rejects.
   */
  forceFlush(): Promise<void>;
  /**
   * Flushes, unpatches the instrumentations, and stops exporting, within the flush timeout; spans not sent by then
   * are counted as dropped. Never rejects. Idempotent.
   */
  shutdown(): Promise<void>;
  /** Unpatches the instrumentations and keeps exporting manual spans. */
  disableInstrumentations(): void;
}

function safely(what: string, work: () => Promise<void>): Promise<void> {
  return work().catch(failureReporter(what));
}

/**
 * What register() returns under `OTEL_SDK_DISABLED=true`: it set up nothing (no global provider, no patching, no
 * exit hooks), and says so at info level. The provider is a bare one whose spans go nowhere; the counters stay zero.
 */
function disabledHandle(options: RegisterOptions, logLevel: DiagLogLevel): WeftHandle {
  const message = 'weft: tracing is off (OTEL_SDK_DISABLED=true): register() set up nothing.';
  if (options.logger === false) diag.info(message);
  else if (logLevel >= DiagLogLevel.INFO) (options.logger ?? new DiagConsoleLogger()).info(message);
  const handle: WeftHandle = {
    tracerProvider: new BasicTracerProvider(),
    isGlobal: false,
    endpoint: '',
    project: '',
    stats: createExportStats(),
    droppedSpans: 0,
    instrumentations: [],
    forceFlush: async () => {},
    shutdown: async () => {
      if (state[STATE_KEY] === handle) delete state[STATE_KEY];
    },
    disableInstrumentations: () => {},
  };
  return handle;
}

/**
 * The global propagators, as OTel's `OTEL_PROPAGATORS` names them (default `tracecontext,baggage`; `none` for none),
 * of those weft has: the others (b3, jaeger, ...) need packages of their own, and the app sets them itself.
 */
function propagatorsFromEnvironment(env: Record<string, string | undefined> = process.env): TextMapPropagator[] {
  const names = new Set(
    (env.OTEL_PROPAGATORS?.trim() || 'tracecontext,baggage')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  if (names.has('none')) return [];
  const propagators: TextMapPropagator[] = [];
  const others: string[] = [];
  for (const name of names) {
    if (name === 'tracecontext') propagators.push(new W3CTraceContextPropagator());
    else if (name === 'baggage') propagators.push(new W3CBaggagePropagator());
    else others.push(name);
  }
  if (others.length > 0) {
    reportOnce(
      'otel-propagators',
      `OTEL_PROPAGATORS names ${others.join(', ')}, which weft does not install (it has tracecontext and baggage), and installs the others. To have them all, set your own propagator with propagation.setGlobalPropagator() before register(), which then leaves it in place.`,
    );
  }
  return propagators;
}

const PROBE_KEY = createContextKey('weft.register.probe');

/** Whether a context manager is registered globally: a value set with `context.with` is then active inside. */
function globalContextWorks(): boolean {
  const probe = ROOT_CONTEXT.setValue(PROBE_KEY, true);
  return context.with(probe, () => context.active() === probe);
}

/** The options of register() that configure weft's default instrumentations; undefined when none is given. */
function chatTracingOptions(options: RegisterOptions): ChatTracingConfig | undefined {
  if (CHAT_TRACING_OPTIONS.every((name) => options[name] === undefined)) return undefined;
  return Object.fromEntries(CHAT_TRACING_OPTIONS.map((name) => [name, options[name]])) as ChatTracingConfig;
}

/**
 * Starts tracing: builds a tracer provider that exports spans as OTLP protobuf to the trace service's
 * `{baseUrl}/otel/v1/traces`, enables weft's instrumentations, and flushes at exit. Call it once, first thing.
 * With no options and no environment, spans go to `weft dev` on this machine.
 *
 * A second call returns the first handle, unchanged: its options are not applied, and it warns, naming them (under
 * `weft/register`, which registers first, from the environment, set the `WEFT_*` variables instead).
 * If another global tracer provider exists, weft does not replace it: it warns, keeps its own provider non-global,
 * and tells you how to add weft to yours instead
 * ({@link weftSpanProcessor}, `WeftContextSpanProcessor` and `weftInstrumentations()`).
 *
 * With `OTEL_SDK_DISABLED=true` it sets up nothing and returns a handle whose methods do nothing.
 *
 * @throws {WeftConfigError} when an option or environment variable is malformed (nothing is started then).
 * @example
 * import { register } from 'weft';
 * const weft = register({ project: 'my-team/support-bot' });
 * // ... the app runs; chat calls of the `openai` package are traced ...
 * await weft.shutdown();
 */
export function register(given?: RegisterOptions): WeftHandle {
  const existing = state[STATE_KEY];
  if (existing) {
    try {
      sayRegisteredAgain(existing, given);
    } catch (error) {
      // Options weft cannot read (a getter that throws, a Proxy): the first registration stays, as always.
      reportOwnFailure('register-again', 'register() was called again, and weft could not compare its options', error);
    }
    return existing;
  }
  // The key is read first: no configuration error may quote it (a key pasted into another variable).
  const handle = withKeyHidden(apiKeyToHide(given), () => startTracing(given));
  state[GIVEN_OPTIONS_KEY] = given;
  return handle;
}

function startTracing(given: RegisterOptions | undefined): WeftHandle {
  // Validate everything before anything global changes, the logger included.
  const options = checkRegisterOptions(given);
  if (sdkDisabled()) {
    // OTel's switch for the whole SDK: nothing else is checked (the connection may not be configured where it is
    // set, nor the log level), and the level is read only to say so at info level.
    const handle = disabledHandle(options, logLevelOrWarn());
    state[STATE_KEY] = handle;
    return handle;
  }
  const logLevel = readLogLevel();
  if (options.logger !== false) {
    diag.setLogger(options.logger ?? new DiagConsoleLogger(), { logLevel: logLevel.level, suppressOverrideMessage: true });
  }
  // Said once the app's logger is in place, so that the warning reaches it.
  reportIgnoredLogLevel(logLevel);

  const chatTracing = chatTracingOptions(options);
  // Checked now, before anything starts: the instrumentation would only read them (and WEFT_CAPTURE_CONTENT and its
  // kin) when it is made, after the global provider is set, and a fixed value could not register again.
  if (options.instrumentations === undefined) resolveChatTracingConfig(chatTracing ?? {});
  const flushTimeout = resolveFlushTimeout(options.exitFlushTimeoutMillis);
  const connection = resolveConnection(options);
  warnIfOtlpEndpointIgnored(options.baseUrl, connection.baseUrl);
  // Chat tracing reads them to know the platform's services: a bad one is said now, as a bad WEFT_BASE_URL is.
  checkServiceUrlVariables();
  // A `weft dev` there serves inference chat too: an openai client pointed at it gets usage unasked (see server.ts).
  rememberPlatformBaseUrl(connection.baseUrl);
  // The client's own options, in a config object shared with new Client(), say where the platform's chat services
  // are, as their variables do.
  for (const option of ['inferenceBaseUrl', 'trainingBaseUrl'] as const) {
    const value = (options as Record<string, unknown>)[option];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new WeftConfigError(option, ENV[option], `weft: option \`${option}\` must be a URL string, got ${kindOf(value)}.`);
    rememberPlatformServiceUrl(parseBaseUrl(value, option, ENV[option]));
  }
  const exporting = exportPipeline(connection, options);
  const routing = routingAttributes(connection.project);
  const serviceName = options.serviceName ?? process.env.OTEL_SERVICE_NAME;
  const provider = new BasicTracerProvider({
    resource: buildResource(routing, serviceName?.trim() || undefined, options.resourceAttributes),
    spanProcessors: [new WeftContextSpanProcessor(), ...(options.spanProcessors ?? []), exporting],
    ...(options.sampler ? { sampler: options.sampler } : {}),
    ...(options.spanLimits ? { spanLimits: options.spanLimits } : {}),
  });

  let isGlobal = false;
  let ownsContext = false;
  let ownsPropagation = false;
  if (options.global ?? true) {
    if (!isNoopTracerProvider(trace.getTracerProvider())) {
      reportOnce(
        'foreign-provider',
        `another global tracer provider is already registered; weft leaves it in place and traces openai calls with a provider of its own, so that provider's spans do not reach the trace service. To send everything through it, give it WeftContextSpanProcessor and weftSpanProcessor() as span processors and weftInstrumentations() as instrumentations, instead of calling register() (README: "Already have a provider").`,
      );
    } else {
      // The API keeps the first context manager and propagator registered: one the app set before register() stays
      // (weft's spans nest through it as through its own), and stays after shutdown().
      if (!globalContextWorks()) {
        const manager = new WeftContextManager().enable();
        ownsContext = context.setGlobalContextManager(manager);
        if (ownsContext) setGlobalWeftContextManager(manager);
        else manager.disable();
      }
      if (propagation.fields().length === 0) {
        const propagators = propagatorsFromEnvironment();
        if (propagators.length > 0) ownsPropagation = propagation.setGlobalPropagator(new CompositePropagator({ propagators }));
      }
      trace.setGlobalTracerProvider(provider);
      isGlobal = true;
    }
  }
  let ownContext: WeftContextManager | undefined;
  if (!isGlobal) {
    setWeftTracerProvider(provider);
    // Without a global context manager op() and withSpan() could not nest; weft's tracing then keeps its own,
    // leaving everything global as it was.
    if (!globalContextWorks()) {
      ownContext = new WeftContextManager().enable();
      setWeftContextManager(ownContext);
    }
  }

  const instrumentations = options.instrumentations ?? weftInstrumentations(chatTracing);
  const listed = [instrumentations].flat(Number.POSITIVE_INFINITY) as (Instrumentation & { isEnabled?: () => boolean })[];
  let disable: (() => void) | undefined = registerInstrumentations({ tracerProvider: provider, instrumentations });
  // OTel's registerInstrumentations() enables only an instrumentation configured `enabled: false`: one an earlier
  // handle's shutdown() disabled still says `enabled: true`, and would stay off, silently, under this registration.
  for (const instrumentation of listed) if (instrumentation.isEnabled?.() === false) instrumentation.enable();
  // In a bundle nothing tells the app that its openai calls go untraced: weft does, unless it was asked to patch none.
  if (listed.some((instrumentation) => instrumentation.instrumentationName === OPENAI_INSTRUMENTATION_NAME)) {
    warnIfBundledOpenAIUnpatched();
  }
  const disableInstrumentations = () => {
    disable?.();
    disable = undefined;
    // instrumentOpenAI() patches through the shared instance, which an app that gave register() an instance of its
    // own never handed over: left enabled, it would keep tracing openai, with its own options, after this.
    const shared = existingSharedOpenAIInstrumentation();
    if (shared && !listed.includes(shared)) shared.disable();
  };

  const flushing = pipelineFlushing(exporting, {
    flushTimeout,
    flushOnExit: options.flushOnExit ?? true,
    flushSpans: () => provider.forceFlush(),
  });

  let stopping: Promise<void> | undefined;
  const handle: WeftHandle = {
    tracerProvider: provider,
    isGlobal,
    endpoint: exporting.endpoint,
    project: exporting.project,
    stats: exporting.stats,
    get droppedSpans() {
      return exporting.stats.spansDropped;
    },
    instrumentations,
    forceFlush: () => safely('flush', flushing.forceFlush),
    disableInstrumentations,
    shutdown() {
      stopping ??= safely('shutdown', async () => {
        // Before the provider stops taking spans: a call still running (a stream half-read) is sent as it stands.
        endUnfinished('weft was shut down');
        disableInstrumentations();
        try {
          await flushing.shutdown(() => provider.shutdown());
        } finally {
          if (isGlobal) {
            trace.disable();
            if (ownsContext) {
              setGlobalWeftContextManager(undefined);
              context.disable();
            }
            if (ownsPropagation) propagation.disable();
          } else {
            setWeftTracerProvider(undefined);
            if (ownContext) {
              setWeftContextManager(undefined);
              ownContext.disable();
            }
          }
          if (state[STATE_KEY] === handle) delete state[STATE_KEY];
          if (state[ZERO_CODE_KEY] === handle) delete state[ZERO_CODE_KEY];
        }
      });
      return stopping;
    },
  };
  state[STATE_KEY] = handle;
  return handle;
}

/**
 * register() from the environment alone, as weft/register does it; a later register() of the app says that its own
 * options were not applied, and why.
 *
 * @internal
 */
export function registerZeroCode(): WeftHandle {
  const handle = register();
  state[ZERO_CODE_KEY] = handle;
  return handle;
}
