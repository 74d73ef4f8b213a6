import type { TracerProvider } from '@opentelemetry/api';
import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import { debug, reportOnce } from '../../diagnostics.js';
import { VERSION } from '../../version.js';
import { isNoopTracerProvider } from '../../tracing/noop-provider.js';
import { type ResolvedChatTracingConfig, reportInternalError, resolveChatTracingConfig } from '../chat/index.js';
import { findBetaHelpersPrototype, findCompletionsPrototype } from './module-shape.js';
import { type AdoptedMethod, type Method, type PatchHost, type PatchedMethodName, tracedCompletionsMethod } from './patch-completions.js';
import { requiredOpenAIModules } from './required-modules.js';
import { tracedHelperMethod } from './stream-helpers.js';
import type { OpenAIInstrumentationConfig } from './types.js';

/** The instrumentation scope of the spans this instrumentation makes. */
export const OPENAI_INSTRUMENTATION_NAME = 'weft/openai';
// The majors whose layout has `Chat.Completions.prototype.create`: from 4, below 8.
const FIRST_MAJOR = 4;
const MAJOR_BEYOND = 8;
/** The `openai` versions patched automatically: every major whose layout has `Chat.Completions.prototype.create`. */
export const SUPPORTED_OPENAI_VERSIONS = [`>=${FIRST_MAJOR}.0.0 <${MAJOR_BEYOND}`];
const isSupportedMajor = (major: number) => major >= FIRST_MAJOR && major < MAJOR_BEYOND;

// Global, so that two copies of weft (ESM and CommonJS) in one process never patch the same method twice.
const WEFT_WRAPPER = Symbol.for('weft.openai.wrapper');
// The enabled instances of every copy of weft, latest last: an `openai` module is patched once, by whichever
// instance came first, but its calls are recorded as the instance enabled (or configured) last says, among those
// that count (see `latestEnabled`). A disabled instance leaves the list and hands its patches to one still in it.
const ENABLED_KEY = Symbol.for('weft.openai.enabledInstrumentations');
const enabledHolder = globalThis as { [ENABLED_KEY]?: PatchHost[] };
// `stream` and `runTools` (openai 5 on) call `create`, which is traced; they are wrapped to watch their iterator.
const CHAT_METHODS: readonly PatchedMethodName[] = ['create', 'parse', 'stream', 'runTools'];
// openai 4 has its `parse` and streaming helpers on `beta.chat.completions`, a prototype of its own.
const BETA_HELPER_METHODS: readonly PatchedMethodName[] = ['parse', 'stream', 'runTools', 'runFunctions'];

/** A prototype weft patches (chat `Completions`, or openai 4's beta one), the methods it patches there, and how. */
interface PatchRecord {
  prototype: object;
  names: readonly PatchedMethodName[];
  methods: AdoptedMethod[];
  active: boolean;
}

/**
 * Traces the official `openai` package's chat completions (`chat.completions.create` and `.parse`) as GenAI
 * CLIENT spans, through the same mapping weft's own client uses. Automatic for `require('openai')` and, with
 * `node --import weft/register`, for `import OpenAI from 'openai'`; for bundled apps or renamed packages use
 * {@link OpenAIInstrumentation.manuallyInstrument} (or `instrumentOpenAI`). Each copy of `openai` in the process
 * (CommonJS and ESM) is patched once; `disable()` unpatches them all, unless another registered instance is still
 * enabled, which then takes the patches over.
 *
 * @example
 * import { register, OpenAIInstrumentation } from 'weft';
 * register({ instrumentations: [new OpenAIInstrumentation({ captureContent: false })] });
 */
export class OpenAIInstrumentation extends InstrumentationBase<OpenAIInstrumentationConfig> {
  // `declare`: the base constructor already calls init()/enable(), before field initialisers would run.
  declare private weftPatches: Map<object, PatchRecord> | undefined;
  declare private weftChatConfig: ResolvedChatTracingConfig | undefined;
  declare private weftHost: PatchHost | undefined;
  declare private weftTracerProvider: TracerProvider | undefined;

  /** @throws WeftConfigError for an option weft cannot use. */
  constructor(config: OpenAIInstrumentationConfig = {}) {
    super(OPENAI_INSTRUMENTATION_NAME, VERSION, config);
  }

  /**
   * Replaces the options; they apply to the next call. With several instances enabled in one process, the
   * chat calls of every patched `openai` module follow the one enabled, registered or configured last among
   * those given a tracer provider (by register() or registerInstrumentations()).
   * @throws WeftConfigError for an option weft cannot use (the previous options stay).
   */
  override setConfig(config: OpenAIInstrumentationConfig = {}): void {
    const resolved = resolveChatTracingConfig(config);
    super.setConfig(config);
    this.weftChatConfig = resolved;
    if (enabledHosts().includes(this.host())) markLatest(this.host());
  }

  /** Called by register() and registerInstrumentations(): from then on this instance's options can apply. */
  override setTracerProvider(tracerProvider: TracerProvider): void {
    super.setTracerProvider(tracerProvider);
    this.weftTracerProvider = tracerProvider;
    if (this.isEnabled()) markLatest(this.host());
  }

  /** The chat recording options, with defaults and environment applied once, when they were set. */
  private chatConfig(): ResolvedChatTracingConfig {
    this.weftChatConfig ??= resolveChatTracingConfig(this.getConfig());
    return this.weftChatConfig;
  }

  protected override init() {
    return [
      new InstrumentationNodeModuleDefinition(
        'openai',
        SUPPORTED_OPENAI_VERSIONS,
        // These run inside the app's require/import: a failure here must never fail the app's import.
        (moduleExports: unknown) => {
          guarded('openai patch', () => this.patchTarget(moduleExports));
          return moduleExports;
        },
        (moduleExports: unknown) =>
          guarded('openai unpatch', () => {
            this.releasePrototype(findCompletionsPrototype(moduleExports));
            this.releasePrototype(findBetaHelpersPrototype(moduleExports));
          }),
      ),
    ];
  }

  /**
   * Patches an `openai` module that the automatic hooks cannot see: a bundled copy, a renamed package
   * (`openai-v4`), or one an ES module imported before weft. Accepts the module (CommonJS exports or ESM namespace), the
   * `OpenAI` class, or a client instance. Returns whether it is now patched (false when its shape is unknown,
   * which is reported once). Patching is undone by `disable()`.
   *
   * @example
   * import OpenAI from 'openai';
   * instrumentation.manuallyInstrument(OpenAI);
   */
  manuallyInstrument(target: unknown): boolean {
    try {
      return this.patchTarget(target);
    } catch (error) {
      reportInternalError('openai manual patch', error);
      return false;
    }
  }

  override enable(): void {
    super.enable();
    markLatest(this.host());
    for (const record of this.patches().values()) if (!record.active) this.patchPrototype(record.prototype, record.names);
    // A copy of openai required before this point: the require hook would see it only if the app required it again.
    guarded('openai patch', () => {
      for (const moduleExports of requiredOpenAIModules(isSupportedMajor)) this.patchTarget(moduleExports);
    });
  }

  /**
   * Stops recording. A patch this instance installed is undone, unless another instance is still enabled: that
   * one then takes the patch over (and undoes it when it is disabled in turn).
   */
  override disable(): void {
    // Out of the list first, so that the base class's unpatch hook below hands over to another instance.
    const hosts = enabledHosts();
    const index = hosts.indexOf(this.host());
    if (index >= 0) hosts.splice(index, 1);
    super.disable();
    for (const record of this.patches().values()) release(record, this.host());
  }

  /** What a patched method reads of this instance. */
  private host(): PatchHost {
    this.weftHost ??= {
      isEnabled: () => this.isEnabled(),
      tracer: () => this.tracer,
      chatConfig: () => this.chatConfig(),
      hasTracerProvider: () => !isNoopTracerProvider(this.weftTracerProvider),
      adoptPatch: (prototype, methods) => {
        const record = this.patches().get(prototype);
        if (record?.active) return;
        this.patches().set(prototype, { prototype, names: methods.map((m) => m.name), methods: [...methods], active: true });
      },
    };
    return this.weftHost;
  }

  private patches(): Map<object, PatchRecord> {
    this.weftPatches ??= new Map();
    return this.weftPatches;
  }

  private patchTarget(target: unknown): boolean {
    const prototype = findCompletionsPrototype(target);
    if (!prototype) {
      reportOnce(
        'openai:module-shape',
        'this openai module has no Chat.Completions.prototype.create; it is left unpatched and its chat calls are not traced.',
      );
      return false;
    }
    this.patchOrRemember(prototype, CHAT_METHODS);
    const betaHelpers = findBetaHelpersPrototype(target);
    if (betaHelpers) this.patchOrRemember(betaHelpers, BETA_HELPER_METHODS);
    return true;
  }

  private patchOrRemember(prototype: object, names: readonly PatchedMethodName[]): void {
    if (this.isEnabled()) this.patchPrototype(prototype, names);
    // Remembered, so that enable() patches it.
    else if (!this.patches().has(prototype)) this.patches().set(prototype, { prototype, names, methods: [], active: false });
  }

  private releasePrototype(prototype: object | undefined): void {
    const record = prototype && this.patches().get(prototype);
    if (record) release(record, this.host());
  }

  private patchPrototype(prototype: object, names: readonly PatchedMethodName[]): void {
    const record = this.patches().get(prototype) ?? { prototype, names, methods: [], active: false };
    if (record.active) return;
    const methods = prototype as Record<string, unknown>;
    openAIPatched = true;
    // Its own wrappers, left in place while it was disabled (another instrumentation had wrapped them), are its again.
    const previous = new Map(record.methods.map((method) => [method.name, method]));
    const ownWrapperIn = (name: PatchedMethodName) => wrapperIn(methods[name], previous.get(name)?.wrapper);
    if (names.some((name) => isWeftWrapped(methods[name]) && !ownWrapperIn(name))) {
      debug('openai chat completions are already patched by weft; not patching them again.');
      return;
    }
    record.methods = [];
    for (const name of names) {
      const original = methods[name];
      if (typeof original !== 'function') continue;
      if (ownWrapperIn(name)) {
        record.methods.push(previous.get(name)!);
        continue;
      }
      const method: AdoptedMethod = { name, original: original as Method, wrapper: original as Method };
      // The instance is read at call time: the one that patched may since have been disabled, or another enabled.
      method.wrapper =
        name === 'create' || name === 'parse'
          ? tracedCompletionsMethod(latestEnabled, method, name)
          : tracedHelperMethod(latestEnabled, method);
      markWrapper(prototype, method);
      methods[name] = method.wrapper;
      record.methods.push(method);
    }
    record.active = true;
    this.patches().set(prototype, record);
  }
}

// Whether an `openai` module was patched in this process (by this copy of weft, or found patched by another).
let openAIPatched = false;

/** Whether weft has patched an `openai` module yet: see register/bundled.ts, which says so when it has not. */
export function openAIPatchedYet(): boolean {
  return openAIPatched;
}

function enabledHosts(): PatchHost[] {
  enabledHolder[ENABLED_KEY] ??= [];
  return enabledHolder[ENABLED_KEY];
}

/**
 * The instance whose tracer and options a patched `openai` call uses: the latest enabled one that was given a real
 * tracer provider. The constructor enables every instance, so one made and never registered (a throwaway, or a
 * library's default) is enabled too, with the global tracer, which is the no-op one under
 * `register({ global: false })`: following it would silently lose chat spans, or record them with options nobody
 * chose. Only when no enabled instance was given a provider (an app that set the global one itself and never
 * registered the instrumentation) is the latest enabled one followed, as it is the only one there is.
 */
function latestEnabled(): PatchHost | undefined {
  const hosts = enabledHosts();
  let fallback: PatchHost | undefined;
  for (let i = hosts.length - 1; i >= 0; i--) {
    const host = hosts[i]!;
    if (!host.isEnabled()) continue;
    if (counts(host)) return host;
    fallback ??= host;
  }
  return fallback;
}

function counts(host: PatchHost): boolean {
  return host.hasTracerProvider ? host.hasTracerProvider() : true;
}

/** Makes `host` the one whose options apply, and says so once when another instance that counts is enabled too. */
function markLatest(host: PatchHost): void {
  const hosts = enabledHosts();
  const index = hosts.indexOf(host);
  if (index >= 0) hosts.splice(index, 1);
  if (counts(host) && hosts.some((other) => other.isEnabled() && counts(other))) {
    reportOnce(
      'openai:several-instances',
      'several OpenAIInstrumentation instances are enabled; openai chat calls are recorded with the options of the one enabled or configured last.',
    );
  }
  hosts.push(host);
}

function guarded(kind: string, work: () => unknown): void {
  try {
    work();
  } catch (error) {
    reportInternalError(kind, error);
  }
}

/**
 * Releases a patch of an instance being disabled (`self`): handed over to the instance that now applies, if one
 * is still enabled and can adopt it, else undone. An instance that was never given a tracer provider does not
 * inherit from one that was: disabling every registered instrumentation (`disableInstrumentations()`) unpatches
 * openai even if a stray instance was constructed. Either way the patch is no longer `self`'s to undo; its record
 * stays, inactive, so that enable() patches again if nobody holds the patch by then.
 */
function release(record: PatchRecord, self: PatchHost): void {
  if (!record.active) return;
  const heir = latestEnabled();
  if (heir && heir !== self && heir.adoptPatch && (counts(heir) || !counts(self))) {
    heir.adoptPatch(record.prototype, record.methods);
    record.active = false;
    return;
  }
  unpatch(record);
}

function unpatch(record: PatchRecord): void {
  if (!record.active) return;
  const methods = record.prototype as unknown as Record<string, unknown>;
  for (const { name, original, wrapper } of record.methods) {
    // If someone wrapped weft's wrapper, removing it would remove theirs too; it passes calls through while disabled.
    if (methods[name] === wrapper) methods[name] = original;
  }
  record.active = false;
}

/** Marks a wrapper the way shimmer does (so other tools see it as wrapped, and can unwrap theirs) and as weft's own. */
function markWrapper(prototype: object, method: AdoptedMethod): void {
  const define = (key: PropertyKey, descriptor: PropertyDescriptor) =>
    Object.defineProperty(method.wrapper, key, { ...descriptor, enumerable: false, configurable: true });
  define(WEFT_WRAPPER, { value: true });
  define('__wrapped', { value: true });
  define('__original', { get: () => method.original });
  define('__unwrap', { value: () => unwrapUnderWeft(prototype, method) });
}

/**
 * shimmer's `unwrap(prototype, name)` (every OpenTelemetry instrumentation's `_unwrap`) calls `__unwrap` on the method
 * it finds there. Finding weft's wrapper, it comes from an instrumentation that patched openai before weft and is
 * being disabled, its own wrapper under weft's: weft's steps aside for that one to unwrap itself, and wraps what is
 * left. The other instrumentation is gone, as it would be without weft, and weft stays; without this its wrapper
 * would stay (and shimmer say so on stderr), and its enable() wrap the method a second time.
 */
function unwrapUnderWeft(prototype: object, method: AdoptedMethod): void {
  const methods = prototype as Record<string, unknown>;
  const under = method.original as Method & { __unwrap?: unknown };
  if (methods[method.name] !== method.wrapper || typeof under.__unwrap !== 'function') return;
  methods[method.name] = under;
  try {
    (under.__unwrap as () => void)();
  } finally {
    const left = methods[method.name];
    if (typeof left === 'function') method.original = left as Method;
    methods[method.name] = method.wrapper;
  }
}

/** The wrappers a method goes through, itself first (shimmer's `__original` chain). */
function* wrapperChain(method: unknown): Generator<{ [WEFT_WRAPPER]?: boolean; __original?: unknown }> {
  let current = method as { [WEFT_WRAPPER]?: boolean; __original?: unknown } | undefined;
  for (let depth = 0; current && depth < 16; depth++) {
    yield current;
    current = current.__original as typeof current;
  }
}

function isWeftWrapped(method: unknown): boolean {
  for (const wrapper of wrapperChain(method)) if (wrapper[WEFT_WRAPPER]) return true;
  return false;
}

function wrapperIn(method: unknown, wrapper: Method | undefined): boolean {
  if (!wrapper) return false;
  for (const current of wrapperChain(method)) if (current === wrapper) return true;
  return false;
}
