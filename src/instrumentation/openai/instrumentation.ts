import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import { debug, reportOnce } from '../../diagnostics.js';
import { VERSION } from '../../version.js';
import { type ResolvedChatTracingConfig, reportInternalError, resolveChatTracingConfig } from '../chat/index.js';
import { type CompletionsPrototype, findCompletionsPrototype } from './module-shape.js';
import { type Method, type PatchHost, tracedCompletionsMethod } from './patch-completions.js';
import type { OpenAIInstrumentationConfig } from './types.js';

/** The instrumentation scope of the spans this instrumentation makes. */
export const OPENAI_INSTRUMENTATION_NAME = 'weft/openai';
/** The `openai` versions patched automatically: every major whose layout has `Chat.Completions.prototype.create`. */
export const SUPPORTED_OPENAI_VERSIONS = ['>=4.0.0 <8'];

// Global, so that two copies of weft (ESM and CommonJS) in one process never patch the same method twice.
const WEFT_WRAPPER = Symbol.for('weft.openai.wrapper');
// The enabled instances of every copy of weft, latest last: an `openai` module is patched once, by whichever
// instance came first, but its calls are recorded as the instance enabled (or configured) last says.
const ENABLED_KEY = Symbol.for('weft.openai.enabledInstrumentations');
const enabledHolder = globalThis as { [ENABLED_KEY]?: PatchHost[] };
const PATCHED_METHODS = ['create', 'parse'] as const;

interface PatchedMethod {
  name: (typeof PATCHED_METHODS)[number];
  original: Method;
  wrapper: Method;
}
interface PatchRecord {
  prototype: CompletionsPrototype;
  methods: PatchedMethod[];
  active: boolean;
}

/**
 * Traces the official `openai` package's chat completions (`chat.completions.create` and `.parse`) as GenAI
 * CLIENT spans, through the same mapping weft's own client uses. Automatic for `require('openai')` and, with
 * `node --import weft/register`, for `import OpenAI from 'openai'`; for bundled apps or renamed packages use
 * {@link OpenAIInstrumentation.manuallyInstrument} (or `instrumentOpenAI`). Each copy of `openai` in the process
 * (CommonJS and ESM) is patched once; `disable()` unpatches them all.
 *
 * @example
 * import { register, OpenAIInstrumentation } from 'weft';
 * register({ instrumentations: [new OpenAIInstrumentation({ captureContent: false })] });
 */
export class OpenAIInstrumentation extends InstrumentationBase<OpenAIInstrumentationConfig> {
  // `declare`: the base constructor already calls init()/enable(), before field initialisers would run.
  declare private weftPatches: Map<CompletionsPrototype, PatchRecord> | undefined;
  declare private weftChatConfig: ResolvedChatTracingConfig | undefined;
  declare private weftHost: PatchHost | undefined;

  /** @throws WeftConfigError for an option weft cannot use. */
  constructor(config: OpenAIInstrumentationConfig = {}) {
    super(OPENAI_INSTRUMENTATION_NAME, VERSION, config);
  }

  /**
   * Replaces the options; they apply to the next call. With several instances enabled in one process, the
   * chat calls of every patched `openai` module follow the one enabled or configured last.
   * @throws WeftConfigError for an option weft cannot use (the previous options stay).
   */
  override setConfig(config: OpenAIInstrumentationConfig = {}): void {
    const resolved = resolveChatTracingConfig(config);
    super.setConfig(config);
    this.weftChatConfig = resolved;
    if (enabledHosts().includes(this.host())) markLatest(this.host());
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
        (moduleExports: unknown) => {
          guarded('openai unpatch', () => {
            const prototype = findCompletionsPrototype(moduleExports);
            const record = prototype && this.patches().get(prototype);
            if (record) unpatch(record);
          });
        },
      ),
    ];
  }

  /**
   * Patches an `openai` module that the automatic hooks cannot see: a bundled copy, a renamed package
   * (`openai-v4`), or one loaded before weft. Accepts the module (CommonJS exports or ESM namespace), the
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
    for (const record of this.patches().values()) if (!record.active) this.patchPrototype(record.prototype);
  }

  override disable(): void {
    super.disable();
    const hosts = enabledHosts();
    const index = hosts.indexOf(this.host());
    if (index >= 0) hosts.splice(index, 1);
    for (const record of this.patches().values()) unpatch(record);
  }

  /** What a patched method reads of this instance. */
  private host(): PatchHost {
    this.weftHost ??= {
      isEnabled: () => this.isEnabled(),
      tracer: () => this.tracer,
      chatConfig: () => this.chatConfig(),
    };
    return this.weftHost;
  }

  private patches(): Map<CompletionsPrototype, PatchRecord> {
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
    if (!this.isEnabled()) {
      // Remember it, so enable() patches it.
      if (!this.patches().has(prototype)) this.patches().set(prototype, { prototype, methods: [], active: false });
      return true;
    }
    return this.patchPrototype(prototype);
  }

  private patchPrototype(prototype: CompletionsPrototype): boolean {
    const record = this.patches().get(prototype) ?? { prototype, methods: [], active: false };
    if (record.active) return true;
    if (isWeftWrapped(prototype.create)) {
      debug('openai chat completions are already patched by weft; not patching them again.');
      return true;
    }
    const own = this.host();
    // Read at call time: the instance that patched may since have been disabled, or another one enabled.
    const host: PatchHost = {
      isEnabled: () => latestEnabled() !== undefined,
      tracer: () => (latestEnabled() ?? own).tracer(),
      chatConfig: () => (latestEnabled() ?? own).chatConfig(),
    };
    record.methods = [];
    const methods = prototype as unknown as Record<string, unknown>;
    for (const name of PATCHED_METHODS) {
      const original = methods[name];
      if (typeof original !== 'function') continue;
      const wrapper = tracedCompletionsMethod(host, original as Method, name);
      markWrapper(wrapper, original as Method);
      methods[name] = wrapper;
      record.methods.push({ name, original: original as Method, wrapper });
    }
    record.active = true;
    this.patches().set(prototype, record);
    return true;
  }
}

function enabledHosts(): PatchHost[] {
  enabledHolder[ENABLED_KEY] ??= [];
  return enabledHolder[ENABLED_KEY];
}

function latestEnabled(): PatchHost | undefined {
  const hosts = enabledHosts();
  for (let i = hosts.length - 1; i >= 0; i--) if (hosts[i]!.isEnabled()) return hosts[i];
  return undefined;
}

/** Makes `host` the one whose options apply, and says so once when another instance is enabled too. */
function markLatest(host: PatchHost): void {
  const hosts = enabledHosts();
  const index = hosts.indexOf(host);
  if (index >= 0) hosts.splice(index, 1);
  if (hosts.some((other) => other.isEnabled())) {
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

function unpatch(record: PatchRecord): void {
  if (!record.active) return;
  const methods = record.prototype as unknown as Record<string, unknown>;
  for (const { name, original, wrapper } of record.methods) {
    // If someone wrapped weft's wrapper, removing it would remove theirs too; it passes calls through while disabled.
    if (methods[name] === wrapper) methods[name] = original;
  }
  record.active = false;
}

/** Marks a wrapper the way shimmer does (so other tools see it as wrapped) and as weft's own. */
function markWrapper(wrapper: Method, original: Method): void {
  for (const [key, value] of [
    [WEFT_WRAPPER, true],
    ['__wrapped', true],
    ['__original', original],
  ] as const) {
    Object.defineProperty(wrapper, key, { value, enumerable: false, configurable: true });
  }
}

function isWeftWrapped(method: unknown): boolean {
  let current = method as { [WEFT_WRAPPER]?: boolean; __original?: unknown } | undefined;
  for (let depth = 0; current && depth < 16; depth++) {
    if (current[WEFT_WRAPPER]) return true;
    current = current.__original as typeof current;
  }
  return false;
}
