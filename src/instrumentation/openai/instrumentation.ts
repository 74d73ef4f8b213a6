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
import { enabledHosts, latestEnabled, leave, markLatest, release } from './enabled-instances.js';
import { isWeftWrapped, markWrapper, type PatchRecord, wrapperIn } from './wrapper-marks.js';
import type { OpenAIInstrumentationConfig } from './types.js';

/** The instrumentation scope of the spans this instrumentation makes. */
export const OPENAI_INSTRUMENTATION_NAME = 'weft/openai';
// The majors whose layout has `Chat.Completions.prototype.create`: from 4, below 8.
const FIRST_MAJOR = 4;
const MAJOR_BEYOND = 8;
/** The `openai` versions patched automatically: every major whose layout has `Chat.Completions.prototype.create`. */
export const SUPPORTED_OPENAI_VERSIONS = [`>=${FIRST_MAJOR}.0.0 <${MAJOR_BEYOND}`];
const isSupportedMajor = (major: number) => major >= FIRST_MAJOR && major < MAJOR_BEYOND;

// `stream` and `runTools` (openai 5 on) call `create`, which is traced; they are wrapped to watch their iterator.
const CHAT_METHODS: readonly PatchedMethodName[] = ['create', 'parse', 'stream', 'runTools'];
// openai 4 has its `parse` and streaming helpers on `beta.chat.completions`, a prototype of its own.
const BETA_HELPER_METHODS: readonly PatchedMethodName[] = ['parse', 'stream', 'runTools', 'runFunctions'];

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
    leave(this.host());
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

function guarded(kind: string, work: () => unknown): void {
  try {
    work();
  } catch (error) {
    reportInternalError(kind, error);
  }
}
